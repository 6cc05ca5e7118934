"""The parent's shared Triton C modules (parent/triton_modules.py) and the child's lookup of them
(child/triton_cache.py): only plain signatures are built, each once, into the folder and file name Triton's own
lookup reads. gcc cannot link a CUDA module on a CPU-only host, so the compiler is replaced here; on a GPU,
benchmarks/launcher_cost.py measures the real builds."""

from __future__ import annotations

import os
import stat
import sysconfig
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("triton.backends.nvidia.driver")
from triton.backends.nvidia import driver  # noqa: E402
from triton.runtime import build as triton_build  # noqa: E402

from kernelbenchx.evaluator.child.warm import launcher_types  # noqa: E402
from kernelbenchx.evaluator.parent import triton_modules  # noqa: E402
from kernelbenchx.evaluator.parent.triton_modules import TritonModules, launcher_signature  # noqa: E402

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def fake_gcc(monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> None:
    """triton.runtime.build._build writing the C source's first bytes as the 'module'."""
    def build(name, src, srcdir, *rest):
        calls.append(name)
        so = os.path.join(srcdir, f"{name}{SUFFIX}")
        Path(so).write_bytes(b"module:" + Path(src).read_bytes()[:64])
        return so

    monkeypatch.setattr(triton_build, "_build", build)
    monkeypatch.setattr(driver, "library_dirs", lambda: [])


def wait_for(modules: TritonModules, built: int) -> None:
    deadline = time.monotonic() + 30
    while modules.built + modules.failed < built and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.parametrize("types", [("*fp32", "*fp32", "i32", "constexpr"), ("*kbf16", "fp64", "u1", "i64")])
def test_plain_signatures_are_accepted(types):
    assert launcher_signature(list(types)) == types


@pytest.mark.parametrize("types", ["*fp32", ["*fp32; system(\"id\")"], [("i32", "i32")], [], ["i32"] * 97,
                                   ["tensordesc<fp16[64, 64]>"], [b"i32"], [3], None, ["I32"]])
def test_anything_else_is_refused(types):
    assert launcher_signature(types) is None


def test_each_signature_is_built_once_into_a_readable_folder(tmp_path, monkeypatch):
    calls: list[str] = []
    fake_gcc(monkeypatch, calls)
    modules = TritonModules(tmp_path / "modules")
    try:
        # a pointer's dtype is not part of a launcher's source: *fp16 shares *fp32's
        assert modules.learn([["*fp32", "i32"], ["*fp32", "i32"], ["bad type"], ["*fp16", "i32"]]) == (3, 2)
        assert modules.learn([["*fp32", "i32"], ["*fp32", "i32", "fp32"]]) == (2, 1)
        wait_for(modules, 3)
        assert calls == ["cuda_utils", "__triton_launcher", "__triton_launcher"]
        files = sorted(p for p in modules.root.rglob("*") if p.is_file())
        assert len(files) == 3 and all(p.name.endswith(SUFFIX) for p in files)  # no temporary file left
        assert all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in files)
        assert stat.S_IMODE(modules.root.stat().st_mode) == 0o755
        assert modules.stats()["built"] == 3
    finally:
        modules.close()
    assert not modules.root.exists()


def test_a_report_is_capped(tmp_path, monkeypatch):
    fake_gcc(monkeypatch, [])
    modules = TritonModules(tmp_path / "modules")
    try:
        many = [["*fp32"] + ["i32"] * k for k in range(1, 40)]
        assert modules.learn(many) == (triton_modules.MAX_PER_REPORT, 0)
        assert modules.learn(None) == (0, 0)
    finally:
        modules.close()


def test_a_failed_build_is_recorded_and_the_next_one_still_runs(tmp_path, monkeypatch):
    calls: list[str] = []
    fake_gcc(monkeypatch, calls)
    real = triton_modules.build

    def flaky(name, source):
        if name == "cuda_utils":
            raise RuntimeError("no gcc")
        return real(name, source)

    monkeypatch.setattr(triton_modules, "build", flaky)
    modules = TritonModules(tmp_path / "modules")
    try:
        modules.learn([["*fp32"]])
        wait_for(modules, 1)
        assert modules.built == 1 and "no gcc" in modules.stats()["error"]
    finally:
        modules.close()


def test_the_launcher_source_depends_on_the_argument_types_alone():
    """What the parent rebuilds from a reported signature is the source the child's Triton generates (3.6:
    CudaLauncher passes the kernel's constexprs and its named signature)."""
    named = {"x": "*fp32", "y": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    child = driver.make_launcher({(3,): 1024}, dict(named), None)
    assert triton_modules.launcher(tuple(named.values()))[1] == child


def test_the_child_reads_a_shared_module_where_tritons_lookup_expects_it(tmp_path, monkeypatch):
    fake_gcc(monkeypatch, [])
    name, source = triton_modules.launcher(("*fp32", "i32"))
    key_dir, filename, data = triton_modules.build(name, source)
    shared = tmp_path / "shared" / key_dir
    shared.mkdir(parents=True)
    (shared / filename).write_bytes(data)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "private"))
    monkeypatch.setenv("TRITON_CACHE_MANAGER", "kernelbenchx.evaluator.child.triton_cache:SharedModules")
    monkeypatch.setenv("KBX_TRITON_MODULES", str(tmp_path / "shared"))
    loaded, built = [], []
    monkeypatch.setattr(triton_build, "_load_module_from_path", lambda n, path: loaded.append(path))
    monkeypatch.setattr(triton_build, "_build", lambda *a: built.append(a) or pytest.fail("built again"))
    triton_build.compile_module_from_src(src=source, name=name)
    assert loaded == [str(shared / filename)] and not built


def test_the_child_reports_the_types_of_its_compiled_kernels():
    kernel = SimpleNamespace(src=SimpleNamespace(signature={"x": "*fp32", "BLOCK": "constexpr"}),
                             metadata=SimpleNamespace(tensordesc_meta=None))
    assert launcher_types(kernel) == ("*fp32", "constexpr")
    described = SimpleNamespace(src=kernel.src, metadata=SimpleNamespace(tensordesc_meta=[{"block": 64}]))
    assert launcher_types(described) is None and launcher_types(object()) is None
