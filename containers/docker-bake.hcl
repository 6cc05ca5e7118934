# docker buildx bake -f containers/docker-bake.hcl cpu|h100   (from the repository root)
#
# `kbx image build --target cpu|h100` is the supported way to build: it computes the variables below and
# checks the result. With bake, set them from `kbx image build --target T --dry-run` (its "args"): the last
# build step recomputes them inside the image and fails the build when one is missing or wrong.
# There is no h200 target: an image per GPU target needs that target's golden timings measured with the
# image's torch build (kernelbenchx/golden/<target>.json), and only h100.json exists.
variable "BASE" { default = "debian:bookworm-slim@sha256:96e378d7e6531ac9a15ad505478fcc2e69f371b10f5cdf87857c4b8188404716" }
variable "KBX_VERSION" { default = "" }
variable "KBX_COMMIT" { default = "" }
variable "DATASET_REVISION" { default = "" }
variable "TASK_SET_SHA256" { default = "" }
variable "GOLDEN_SHA256" { default = "" }
variable "LOCK_SHA256" { default = "" }
variable "TORCH_INDEX" { default = "" }

group "default" { targets = ["cpu", "h100"] }

target "common" {
  context    = "."
  dockerfile = "containers/Dockerfile"
  args = {
    BASE = BASE, KBX_VERSION = KBX_VERSION, KBX_COMMIT = KBX_COMMIT, DATASET_REVISION = DATASET_REVISION,
    TASK_SET_SHA256 = TASK_SET_SHA256, GOLDEN_SHA256 = GOLDEN_SHA256, LOCK_SHA256 = LOCK_SHA256,
    TORCH_INDEX = TORCH_INDEX, TRITON_BUILD = "3.6.0"
  }
  # For HTTPS-intercepting proxies: the CA bundle as a build secret, never a layer.
  secret = ["id=ca,env=PIP_CERT"]
}

# The CPU build of torch: put its wheel in containers/wheels/ or set TORCH_INDEX to the PyTorch CPU index.
target "cpu" {
  inherits = ["common"]
  args     = { TARGET = "cpu", TORCH_BUILD = "2.13.0+cpu", GOLDEN_SHA256 = "none" }
  tags     = ["kbx-eval:cpu"]
}

# torch 2.11.0+cu130 from PyPI (it bundles the CUDA 13.0 runtime): the build kernelbenchx/golden/h100.json used.
target "h100" {
  inherits = ["common"]
  args     = { TARGET = "h100", TORCH_BUILD = "2.11.0+cu130" }
  tags     = ["kbx-eval:h100"]
}
