# docker buildx bake -f containers/docker-bake.hcl   (one image per GPU target)
variable "TORCH_VERSION" { default = "2.11.0" }
variable "TRITON_VERSION" { default = "3.6.0" }

group "default" { targets = ["h100", "h200"] }

target "base" {
  context    = "."
  dockerfile = "containers/Dockerfile"
  args       = { TORCH_VERSION = TORCH_VERSION, TRITON_VERSION = TRITON_VERSION }
}

target "h100" {
  inherits = ["base"]
  args     = { TARGET = "h100" }
  tags     = ["kbx-eval:h100"]
}

target "h200" {
  inherits = ["base"]
  args     = { TARGET = "h200" }
  tags     = ["kbx-eval:h200"]
}
