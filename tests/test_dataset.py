"""The Hugging Face dataset: deterministic builds, every config loading offline with datasets.load_dataset, cases
readable without torch, kernels from a real kbx run, the card, and push/download up to the network call.

Builds here use a handful of tasks (the cases config runs every reference); the whole set is built by
`kbx dataset build hf/` (README, "The dataset"), which CI does not run.
"""

import hashlib
import importlib.util
import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
import torch
from huggingface_hub import DatasetCard, HfApi
from typer.testing import CliRunner

from kernelbenchx.cli import app
from kernelbenchx.dataset.cases import build_cases
from kernelbenchx.dataset.hub import build_dataset, corpus_submission, download_dataset, push_dataset
from kernelbenchx.dataset.hub.publish import HubRefused, HubUnreachable
from kernelbenchx.dataset.hub.rows import seeded_reference
from kernelbenchx.dataset.hub.tensors import decode, encode
from kernelbenchx.dataset.registry import get_task
from kernelbenchx.errors import KbxError, UsageError
from kernelbenchx.evaluator.measure.environment import fingerprint
from kernelbenchx.evaluator.parent.run import RunConfig, evaluate_submission
from kernelbenchx.evaluator.parent.submission import InputProblem, read_submission
from tests.conftest import ROOT

# bf16 outputs, complex128 outputs, 0-d outputs viewing torch's scratch memory, an unseeded sampler, a seeded RNG
# task, strided views, a simple task
TASKS = ["Activation/gelu_bf16", "LinearAlgebra/eig", "Loss/mse_loss", "Math/bitwise_and_binomial", "Math/add",
         "Random/rand", "Reduce/sum"]
CONFIGS = {"tasks": ["test"], "cases": ["test"], "kernels": ["test"], "golden": ["h100"], "solutions": ["test"]}


def load(folder: Path, config: str, split: str, cache: Path) -> datasets.Dataset:
    return datasets.load_dataset(str(folder), config, split=split, cache_dir=str(cache))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A small corpus in upstream's format: a task kbx lacks, and Math/add (a syntax error, then kbx's solution)."""
    def side(ok: bool, speedup):
        return {"call_ok": ok, "exe_ok": ok, "perf_ok": ok, "speedup": speedup, "runtime_ms": None}

    solution = (ROOT / "kernelbenchx" / "solutions" / "Math" / "add.py").read_text()
    records = [
        {"task_id": "Broadcast/expand_add.py", "transition": "round_0_to_round_1", "from_round": "round_0",
         "to_round": "round_1", "kind": "perf_ok_newly", "before": side(False, None), "after": side(True, 2.5),
         "before_code": "import torch\n", "after_code": "import triton\n"},
        {"task_id": "Math/add.py", "transition": "round_1_to_round_2", "from_round": "round_1", "to_round": "round_2",
         "kind": "exe_fail_to_pass", "before": side(False, None), "after": side(True, 1.25),
         "before_code": "import torch def add(:\n", "after_code": solution},
    ]
    path = tmp_path_factory.mktemp("corpus") / "all_records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def run_dir(corpus, tmp_path_factory) -> Path:
    """A real kbx run (CPU interpreter, no timing) of the corpus's submission."""
    base = tmp_path_factory.mktemp("run")
    assert corpus_submission(corpus, base / "sub.jsonl") == 4
    evaluate_submission(base / "sub.jsonl", RunConfig(out_dir=base / "run", device="cpu", perf=False, workers=1))
    return base / "run"


@pytest.fixture(scope="module")
def built(corpus, run_dir, tmp_path_factory):
    """Two builds of the same tasks, the global RNG disturbed between them."""
    base = tmp_path_factory.mktemp("builds")
    first = build_dataset(base / "a", corpus, run_dir, TASKS)
    torch.manual_seed(12345)
    torch.rand(7)
    second = build_dataset(base / "b", corpus, run_dir, TASKS)
    return first, second


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No Hub: the variables for child processes, and the flags the libraries read from them at import."""
    import huggingface_hub.constants

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    return tmp_path / "cache"


def test_two_builds_are_byte_identical(built):
    first, second = built
    files = sorted(p.relative_to(first.out_dir).as_posix() for p in first.out_dir.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second.out_dir).as_posix() for p in second.out_dir.rglob("*") if p.is_file())
    for name in files:
        assert (first.out_dir / name).read_bytes() == (second.out_dir / name).read_bytes(), name
    assert {"data/cases/test-00000-of-00001.parquet", "data/golden/h100-00000-of-00001.parquet", "README.md",
            "MANIFEST.json"} <= set(files)


def test_manifest_hashes_every_file_and_ties_to_results(built, run_dir):
    folder, manifest = built[0].out_dir, built[0].manifest
    on_disk = {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in folder.rglob("*") if p.is_file() and p.name != "MANIFEST.json"}
    assert manifest["files"] == on_disk and json.loads((folder / "MANIFEST.json").read_text()) == manifest
    assert manifest["task_set_sha256"] == fingerprint("cpu")["task_set_sha256"]
    assert manifest["task_ids"] == sorted(TASKS) and manifest["complete_task_set"] is False
    record = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    assert record["environment"]["task_set_sha256"] == manifest["task_set_sha256"]
    assert manifest["sources"]["kernels_run"]["run_id"] == record["run_id"]


def test_every_config_loads_offline(built, offline):
    folder = built[0].out_dir
    assert {c: list(s) for c, s in built[0].manifest["configs"].items()} == CONFIGS
    for config, splits in CONFIGS.items():
        for split in splits:
            rows = load(folder, config, split, offline)
            assert rows.num_rows == built[0].rows[config][split] > 0, (config, split)
    tasks = load(folder, "tasks", "test", offline)
    add = tasks.filter(lambda r: r["id"] == "Math/add")[0]
    assert "## Numerical contract" in add["prompt"] and "def reference" in add["reference_source"]
    assert add["task_sha256"] == hashlib.sha256(
        (ROOT / "kernelbenchx/dataset/tasks/Math/add.py").read_bytes()).hexdigest()
    rand = tasks.filter(lambda r: r["id"] == "Random/rand")[0]
    assert rand["stochastic"] and rand["seed_kwarg"] == "seed" and rand["deviations"][0]["kind"]
    golden = load(folder, "golden", "h100", offline)
    assert set(golden["task_id"]) <= set(TASKS) and all(json.loads(e)["gpu"] for e in golden["environment"])


def test_cases_decode_to_the_evaluators_inputs_and_reference_outputs(built, offline):
    cases = load(built[0].out_dir, "cases", "test", offline)
    by_name = {(r["task_id"], r["case"]): r for r in cases}
    for task_id in TASKS:
        task = get_task(task_id)
        for name, call in build_cases(task, None):
            row = by_name.pop((task_id, name))
            got = decode(json.loads(row["inputs_structure"]), row["inputs"], json.loads(row["input_layouts"]))
            want = call.to_payload()
            for a, b in zip(tensors(got), tensors(want), strict=True):
                assert (a.dtype, a.shape, a.stride(), a.storage_offset()) == \
                    (b.dtype, b.shape, b.stride(), b.storage_offset()), (task_id, name)
                assert torch.equal(storage_of(a), storage_of(b)) or a.dtype.is_floating_point and torch.allclose(
                    storage_of(a), storage_of(b), equal_nan=True, rtol=0, atol=0), (task_id, name)
            expected = decode(json.loads(row["expected_structure"]), row["expected"],
                              json.loads(row["expected_layouts"]))
            reference = seeded_reference(task, name, call)
            for a, b in zip(tensors(expected), tensors(reference), strict=True):
                assert a.dtype == b.dtype and torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)), (task_id, name)
    assert not by_name, f"cases the builder made up: {sorted(by_name)[:3]}"
    assert any("@transposed" in r["case"] and r["has_views"] and json.loads(r["input_layouts"])[0]["storage"]
               for r in cases)
    assert {"bfloat16", "complex128"} <= {d for r in cases for d in r["expected_dtypes"]}
    assert all(r["stochastic"] for r in cases if r["task_id"] in ("Math/bitwise_and_binomial", "Random/rand"))


def test_outputs_are_stored_by_value_inputs_with_their_storage():
    scratch = torch.arange(17.0)
    output = scratch[3:4].view(())  # a 0-d result viewing a larger buffer, as some torch losses return
    _, stored, layouts = encode((output,), "output", views=False)
    assert list(stored) == ["output.0"] and stored["output.0"].item() == 3.0 and layouts[0]["storage"] is None
    _, stored, layouts = encode({"x": output}, "call")
    assert sorted(stored) == ["call.x", "call.x#storage"] and layouts[0]["storage_offset"] == 3
    assert torch.equal(stored["call.x#storage"], scratch)


def tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from tensors(v)


def storage_of(t: torch.Tensor) -> torch.Tensor:
    """The tensor's whole storage as a 1-D tensor of its dtype (poison padding included)."""
    s = t.untyped_storage()
    return torch.empty(0, dtype=t.dtype).set_(s, 0, (s.nbytes() // t.element_size(),), (1,))


NO_TORCH = """\
import sys


class HideTorch:
    def __init__(self, inner):
        self.inner = inner

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            return None
        return self.inner.find_spec(name, path, target)

    def __getattr__(self, attr):
        return getattr(self.inner, attr)


sys.meta_path[:] = [HideTorch(f) if hasattr(f, "find_spec") else f for f in sys.meta_path]
"""


def test_consumer_script_reads_cases_without_torch(built, tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(NO_TORCH)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(hide), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    check = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True)
    assert check.returncode != 0 and "No module named 'torch'" in check.stderr
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "read_cases.py"), str(built[0].out_dir)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Reduce/sum fixed/two_dims@strided" in done.stdout and "view strides=" in done.stdout
    assert f"{built[0].rows['cases']['test']} cases, 0 views not matching" in done.stderr


def test_consumer_decoding_equals_torch_decoding(built, offline):
    spec = importlib.util.spec_from_file_location("read_cases", ROOT / "examples" / "read_cases.py")
    reader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader)
    for row in load(built[0].out_dir, "cases", "test", offline):
        for prefix, blob in (("input", "inputs"), ("expected", "expected")):
            structure = json.loads(row[f"{prefix}s_structure" if prefix == "input" else "expected_structure"])
            layouts = json.loads(row[f"{prefix}_layouts"])
            ours = list(tensors(decode(structure, row[blob], layouts)))
            theirs = list(arrays(reader.decode(structure, row[blob], layouts)))
            for t, a in zip(ours, theirs, strict=True):
                t = t.float() if t.dtype == torch.bfloat16 else t  # numpy reads bf16 as float32, exactly
                assert list(a.shape) == list(t.shape) and torch.equal(
                    torch.nan_to_num(torch.from_numpy(a.copy())), torch.nan_to_num(t)), (row["task_id"], row["case"])


def arrays(value):
    import numpy as np

    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from arrays(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from arrays(v)


def test_kernels_carry_kbx_verdicts_and_upstream_provenance(built, run_dir, offline):
    rows = sorted(load(built[0].out_dir, "kernels", "test", offline), key=lambda r: r["submission_line"])
    records = {json.loads(line)["candidate"]["source"]: json.loads(line)
               for line in (run_dir / "results.jsonl").read_text().splitlines()}
    assert [r["sample_id"] for r in rows[2:]] == [2, 3] and [r["corpus_side"] for r in rows] == ["before", "after"] * 2
    for row in rows:
        record = records[f"sub.jsonl:{row['submission_line']}"]
        assert (row["verdict"], row["reason"]) == (record["verdict"], record["reason"]["code"])
        assert row["speedup_eager"] is None and row["upstream_task_id"].endswith(".py")
    unknown, syntax, solved = rows[0], rows[2], rows[3]
    assert unknown["verdict"] == "input_error" and unknown["reason"] == "unknown_task"
    assert unknown["upstream_speedup"] is None and rows[1]["upstream_speedup"] == 2.5
    assert syntax["verdict"] == "compile_error" and syntax["round"] == 1 and syntax["method"] == "GEAK"
    assert solved["verdict"] == "correct" and solved["upstream_exe_ok"] is True and solved["round"] == 2
    assert solved["code_sha256"] == hashlib.sha256(solved["code"].encode()).hexdigest()
    assert solved["perf_status"] == "skipped" and solved["gpu"] is None
    assert "CPU under Triton's interpreter" in (built[0].out_dir / "README.md").read_text()


def test_a_run_of_another_submission_is_refused(run_dir, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"task_id": "Math/add.py", "transition": "r", "from_round": "round_0",
                                 "to_round": "round_1", "before": {}, "after": {}, "before_code": "x",
                                 "after_code": "y"}) + "\n")
    with pytest.raises(UsageError, match="did not evaluate this corpus"):
        build_dataset(tmp_path / "ds", other, run_dir, ["Math/add"], configs=("kernels",))
    with pytest.raises(UsageError, match="need --kernels-run"):
        build_dataset(tmp_path / "ds", other, None, ["Math/add"])
    with pytest.raises(UsageError, match="not a finished kbx run"):
        build_dataset(tmp_path / "ds", None, tmp_path, ["Math/add"], configs=("kernels",))


def test_any_run_builds_kernels_with_code_from_its_submission(run_dir, tmp_path, offline):
    built = build_dataset(tmp_path / "ds", None, run_dir, ["Math/add"], configs=("kernels",),
                          submission=run_dir.parent / "sub.jsonl")
    rows = load(built.out_dir, "kernels", "test", offline)
    assert rows.num_rows == 4 and all(r["code"] for r in rows) and not any(r["corpus_line"] for r in rows)
    assert rows.filter(lambda r: r["verdict"] == "correct")[0]["code"].startswith(("import", '"""', "#"))
    bare = build_dataset(tmp_path / "bare", None, run_dir, ["Math/add"], configs=("kernels",))
    assert bare.rows == {"kernels": {"test": 4}} and "kernels" in bare.manifest["configs"]
    with pytest.raises(UsageError, match="did not evaluate this submission"):
        build_dataset(tmp_path / "ds", None, run_dir, ["Math/add"], configs=("kernels",),
                      submission=ROOT / "examples" / "submission.jsonl")


def test_rebuild_leaves_no_stale_files_and_spares_other_folders(tmp_path):
    out = tmp_path / "ds"
    build_dataset(out, task_ids=["Math/add"], configs=("tasks", "golden"))
    (out / "data" / "old").mkdir()
    (out / "data" / "old" / "stale.parquet").write_text("x")
    build_dataset(out, task_ids=["Math/add"], configs=("tasks",))
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "MANIFEST.json", "README.md", "data/tasks/test-00000-of-00001.parquet"]
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="not a kbx dataset folder"):
        build_dataset(precious, task_ids=["Math/add"], configs=("tasks",))
    assert (precious / "notes.txt").read_text() == "mine"


def test_card_renders_configs_citation_and_columns(built):
    card = DatasetCard.load(built[0].out_dir / "README.md")
    assert card.data.license == "apache-2.0" and card.data.size_categories == ["n<1K"]
    assert [c["config_name"] for c in card.data.configs] == list(CONFIGS)
    assert {(c["config_name"], d["split"], d["path"]) for c in card.data.configs for d in c["data_files"]} == {
        (c, s, f"data/{c}/{s}-00000-of-00001.parquet") for c, splits in CONFIGS.items() for s in splits}
    text = card.text
    for needle in ("arXiv:2502.10517", "arXiv:2605.04956", "KernelBench: Can LLMs Write Efficient GPU Kernels?",
                   "KernelBench-X: A Comprehensive Benchmark", "as_strided", "revision=", "`upstream_speedup`",
                   built[0].manifest["task_set_sha256"], "kernelbenchx 0.", "subset of 7 tasks"):
        assert needle in text, needle
    for config in CONFIGS:
        assert f"### `{config}`" in text


class FakeHub:
    """HfApi's methods that push/download call, kept in memory; every call is bound against the real HfApi
    signature, so a keyword the library does not take fails here as it would there."""

    def __init__(self, root: Path) -> None:
        self.root, self.commits, self.tags, self.calls = root, [], {}, []

    def bind(self, name, *args, **kwargs):
        inspect.signature(getattr(HfApi, name)).bind(None, *args, **kwargs)
        self.calls.append(name)

    def create_repo(self, *args, **kwargs):
        self.bind("create_repo", *args, **kwargs)

    def list_repo_refs(self, *args, **kwargs):
        self.bind("list_repo_refs", *args, **kwargs)
        return type("Refs", (), {"tags": [type("Ref", (), {"name": t})() for t in self.tags]})()

    def upload_folder(self, **kwargs):
        self.bind("upload_folder", **kwargs)
        oid = f"{len(self.commits):040x}"
        shutil.copytree(kwargs["folder_path"], self.root / oid)
        self.commits.append(oid)
        return type("CommitInfo", (), {"oid": oid, "commit_url": f"https://hub/{oid}"})()

    def create_tag(self, *args, **kwargs):
        self.bind("create_tag", *args, **kwargs)
        self.tags[kwargs["tag"]] = kwargs["revision"]

    def dataset_info(self, *args, **kwargs):
        self.bind("dataset_info", *args, **kwargs)
        return type("Info", (), {"sha": self.tags.get(kwargs["revision"], kwargs["revision"])})()

    def snapshot_download(self, *args, **kwargs):
        self.bind("snapshot_download", *args, **kwargs)
        shutil.copytree(self.root / kwargs["revision"], kwargs["local_dir"], dirs_exist_ok=True)
        (Path(kwargs["local_dir"]) / ".cache" / "huggingface").mkdir(parents=True)  # as the real one leaves
        return kwargs["local_dir"]


def test_push_tags_once_and_download_loads_offline(built, tmp_path, offline):
    hub = FakeHub(tmp_path / "hub")
    folder = built[0].out_dir
    pushed = push_dataset(folder, "org/kbx", tag="v0.2.0", api=hub)
    assert hub.tags == {"v0.2.0": pushed.commit} and hub.calls == ["create_repo", "list_repo_refs", "upload_folder",
                                                                  "create_tag"]
    with pytest.raises(HubRefused, match="tags never move"):
        push_dataset(folder, "org/kbx", tag="v0.2.0", api=hub)
    assert len(hub.commits) == 1
    with pytest.raises(UsageError, match="vX.Y.Z"):
        push_dataset(folder, "org/kbx", tag="latest", api=hub)
    got = download_dataset("org/kbx", "v0.2.0", tmp_path / "dl", api=hub, cache_dir=str(offline))
    assert got.commit == pushed.commit and got.rows == built[0].rows


def test_edited_folder_is_not_pushed(built, tmp_path):
    folder = tmp_path / "edited"
    shutil.copytree(built[0].out_dir, folder)
    (folder / "README.md").write_text("hand-edited\n")
    hub = FakeHub(tmp_path / "hub")
    with pytest.raises(UsageError, match="differs from its MANIFEST.json: README.md"):
        push_dataset(folder, "org/kbx", api=hub)
    assert hub.calls == []


def test_offline_hub_is_a_clear_error(built, tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # huggingface_hub's own offline mode
    with pytest.raises(HubUnreachable) as caught:
        push_dataset(built[0].out_dir, "org/kbx", tag="v0.2.0")
    assert "unreachable" in caught.value.message and "HF_HUB_OFFLINE" in caught.value.hint
    assert isinstance(caught.value, KbxError)
    result = CliRunner().invoke(app, ["dataset", "download", "org/kbx", "--revision", "v0.2.0", "--to",
                                      str(tmp_path / "dl")], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "unreachable" in result.output and "hint:" in result.output
    assert "Traceback" not in result.output


@pytest.mark.shared
def test_upstream_corpus_submission(shared_upstream, tmp_path):
    """The real corpus: 110 records → 220 candidates; 54 name tasks kbx lacks; 14 do not parse (8 of them
    for tasks kbx has: compile_error syntax_error; the rest are input_error unknown_task)."""
    import ast

    sub = tmp_path / "corpus.jsonl"
    assert corpus_submission(shared_upstream / "all_records.jsonl", sub) == 220
    lines = [json.loads(line) for line in sub.read_text().splitlines()]
    assert [line["sample_id"] for line in lines] == list(range(220))
    assert {line["round"] for line in lines} == {0, 1, 2} and {line["method"] for line in lines} == {"GEAK"}
    items = list(read_submission(sub))
    unknown = [i for i in items if isinstance(i, InputProblem)]
    assert len(unknown) == 54 and {i.reason.value for i in unknown} == {"unknown_task"}

    def parses(code: str) -> bool:
        try:
            ast.parse(code)
        except SyntaxError:
            return False
        return True

    assert sum(not parses(line["code"]) for line in lines) == 14  # 6 of them for tasks kbx lacks
    assert sum(not parses(i.code) for i in items if not isinstance(i, InputProblem)) == 8
    again = tmp_path / "again.jsonl"
    corpus_submission(shared_upstream / "all_records.jsonl", again)
    assert again.read_bytes() == sub.read_bytes()


def test_cli_build_and_corpus_submission(corpus, tmp_path):
    runner = CliRunner()
    built = runner.invoke(app, ["dataset", "build", str(tmp_path / "ds"), "--tasks", "Math/add,Reduce/sum",
                                "--configs", "tasks,golden"], env={"COLUMNS": "200"})
    assert built.exit_code == 0, built.output
    assert "tasks: test 2 rows" in built.output and "golden: h100" in built.output
    assert json.loads((tmp_path / "ds" / "MANIFEST.json").read_text())["task_ids"] == ["Math/add", "Reduce/sum"]
    unknown = runner.invoke(app, ["dataset", "build", str(tmp_path / "ds"), "--tasks", "Math/ad"])
    assert unknown.exit_code == 2 and "did you mean Math/add" in unknown.output
    sub = runner.invoke(app, ["dataset", "corpus-submission", str(corpus), str(tmp_path / "sub.jsonl")])
    assert sub.exit_code == 0 and "4 candidates" in sub.output
    assert [json.loads(line)["sample_id"] for line in (tmp_path / "sub.jsonl").read_text().splitlines()] == [0, 1, 2, 3]


def test_the_recorded_commit_says_dirty_when_the_code_differs_from_it(tmp_path, monkeypatch):
    """A record names the code that ran: a checkout whose kbx files differ from HEAD (changed, or new) is not that
    commit. The same rule, with containers/ too, names an image's source (image/targets.py source_commit)."""
    import subprocess

    from kernelbenchx.dataset import provenance

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "kernelbenchx").mkdir()
    (tmp_path / "kernelbenchx" / "a.py").write_text("x = 1\n")
    git("add", "kernelbenchx")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a")
    monkeypatch.setattr(provenance, "REPO", tmp_path)
    head = provenance.checkout_commit()
    assert len(head) == 40
    (tmp_path / "notes.txt").write_text("outside the code: does not count\n")
    assert provenance.checkout_commit() == head
    (tmp_path / "kernelbenchx" / "b.py").write_text("y = 1\n")
    assert provenance.checkout_commit() == f"{head}+dirty"
    (tmp_path / "kernelbenchx" / "b.py").unlink()
    (tmp_path / "kernelbenchx" / "a.py").write_text("x = 2\n")
    assert provenance.checkout_commit() == f"{head}+dirty"
