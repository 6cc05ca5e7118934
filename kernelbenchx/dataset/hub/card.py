"""The dataset card (README.md): YAML metadata through huggingface_hub's card API, then the documentation a
user needs: what each config holds, a column table per config, how to decode tensors, how to pin a revision."""

from __future__ import annotations

from huggingface_hub import DatasetCard, DatasetCardData

from kernelbenchx.dataset.hub.columns import COLUMNS

REPO_PLACEHOLDER = "ORG/kernelbench-x"  # the card names no repository: the same folder can go to any
TAGS = ["code", "triton", "gpu-kernels", "benchmark", "kernelbench", "llm-evaluation"]
CITATION = """\
@inproceedings{ouyang2025kernelbench,
  title     = {KernelBench: Can LLMs Write Efficient GPU Kernels?},
  author    = {Ouyang, Anne and Guo, Simon and Arora, Simran and Zhang, Alex L. and Hu, William and
               R{\\'e}, Christopher and Mirhoseini, Azalia},
  booktitle = {Proceedings of the 42nd International Conference on Machine Learning (ICML)},
  year      = {2025},
  note      = {arXiv:2502.10517}
}

@article{wang2026kernelbenchx,
  title   = {KernelBench-X: A Comprehensive Benchmark for Evaluating LLM-Generated GPU Kernels},
  author  = {Wang, Han and Zhang, Jintao and Jiang, Kai and Wang, Haoxu and Chen, Jianfei and Zhu, Jun},
  journal = {arXiv preprint arXiv:2605.04956},
  year    = {2026}
}"""

ABOUT = {
    "tasks": "one row per task: the exact prompt, the PyTorch reference, the numerical contract and how the task "
             "differs from the seed paper's.",
    "cases": "the fixed stage-1 cases of every task: inputs and the reference's expected outputs as safetensors "
             "bytes (stage-2 inputs are drawn from each run's secret seed and never published).",
    "kernels": "generated kernels with kbx's own verdict, reason and speedup from one kbx run (upstream's own flags "
               "and speedups only in `upstream_*` provenance columns).",
    "golden": "PyTorch baseline timings per hardware target: one split per target, with the machine and protocol "
              "(a cross-check; kbx times baselines live).",
    "solutions": "kbx's reference Triton solution of each task.",
}


def size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


def metadata(manifest: dict, counts: dict[str, dict[str, int]]) -> DatasetCardData:
    configs = [{"config_name": name, "data_files": [{"split": split, "path": entry["path"]}
                                                    for split, entry in splits.items()],
                **({"default": True} if name == "tasks" else {})}
               for name, splits in manifest["configs"].items()]
    largest = max((n for splits in counts.values() for n in splits.values()), default=0)
    return DatasetCardData(license="apache-2.0", language=["en"], pretty_name="KernelBench-X (kbx)",
                           size_categories=[size_category(largest)], task_categories=["text-generation"],
                           tags=TAGS, configs=configs)


def column_table(config: str) -> str:
    lines = ["| column | type | meaning |", "|---|---|---|"]
    for name, kind, doc in COLUMNS[config]:
        lines.append(f"| `{name}` | {type_name(kind)} | {doc} |")
    return "\n".join(lines)


def type_name(kind: object) -> str:
    if isinstance(kind, dict):
        return "struct"
    inner = getattr(kind, "feature", None)
    if inner is not None:
        return f"list<{type_name(inner)}>"
    return str(getattr(kind, "dtype", kind))


def render(manifest: dict, counts: dict[str, dict[str, int]]) -> str:
    """The card's text: YAML front matter from DatasetCardData, then the body."""
    data = metadata(manifest, counts)
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body(manifest, counts)}"))


def body(manifest: dict, counts: dict[str, dict[str, int]]) -> str:
    parts = [header(manifest, counts)]
    for config in manifest["configs"]:
        rows = ", ".join(f"`{split}`: {n} rows" for split, n in counts[config].items())
        parts.append(f"### `{config}` ({rows})\n\n{ABOUT[config]}\n\n{column_table(config)}")
    parts += [DECODING, pinning(manifest), kernels_note(manifest), f"## Citation\n\n```bibtex\n{CITATION}\n```"]
    return "\n\n".join(parts) + "\n"


def header(manifest: dict, counts: dict[str, dict[str, int]]) -> str:
    subset = "" if manifest["complete_task_set"] else (
        f" **This build holds a subset of {manifest['tasks']} tasks** (see `task_ids` in MANIFEST.json).")
    return f"""# KernelBench-X tasks, cases and kernels (kernelbenchx {manifest['version']})

The tasks of KernelBench-X (176 PyTorch operators in 15 categories, Apache-2.0) as the `kbx` evaluator states
and judges them: a model writes a Triton kernel for a task's prompt; `kbx eval` decides whether it is correct and
how fast it runs.{subset}

- kbx version `{manifest['version']}`, commit `{manifest['kbx_commit']}`
- task-set hash `{manifest['task_set_sha256']}` (sha256 over every task's id and module source)
- `MANIFEST.json` lists every file's sha256, the library versions that wrote it and where the kernels came from.

```python
import datasets
tasks = datasets.load_dataset("{REPO_PLACEHOLDER}", "tasks", split="test", revision="v{manifest['version']}")
```

## Configs"""


DECODING = """## Decoding tensors (no torch, no pickle)

`inputs` and `expected` are [safetensors](https://github.com/huggingface/safetensors) bytes. The matching
`*_structure` column is JSON: the call `{"args": [...], "kwargs": {...}}` (or the output) with each tensor written
`{"tensor": KEY}`, tuples, lists and dicts tagged (`{"tuple": [...]}`, `{"list": [...]}`, `{"dict": {...}}`), dtypes
as `{"dtype": "float32"}` and non-finite floats as `{"float": "inf"}`. The `*_layouts` column lists every tensor:
`key`, `dtype`, `shape`, `stored`, `strides`, `storage_offset`, `storage`.

- Each KEY holds the tensor's values, contiguous, row-major.
- Cases named `...@transposed`, `@sliced`, `@strided`, `@offset` or `@expanded` give the kernel a view, not a
  contiguous tensor. For such a tensor `storage` names a second entry (`KEY#storage`): its whole 1-D storage,
  poison padding included. The exact view is `as_strided(storage, shape, strides, storage_offset)` (strides and
  offset in elements); in numpy, `np.lib.stride_tricks.as_strided(storage[offset:], shape,
  [s * storage.itemsize for s in strides])`; in torch, `storage.as_strided(shape, strides, offset)`.
  Expected outputs are stored by value only (they are compared by value; a kernel may return any layout).
- `stored: "real_pairs"` (complex128, which safetensors lacks): the entry is float64 with a last dimension of 2
  (real, imaginary).
- bfloat16 entries (`BF16`) have no numpy dtype: read their 16-bit words and shift them into the high half of a
  float32 (`examples/read_cases.py` in the kbx repository does this).

```python
from safetensors.numpy import load
values = load(row["inputs"])                 # KEY -> numpy array (all dtypes but BF16)
```

Expected outputs were computed by the torch build in `torch`/`torch_git` on `device`/`cpu_capability`: compare a
kernel's output with the task's contract (tolerances, the task's own check), never bitwise. Rows with
`stochastic` true are one sample of a random law: they show shapes and dtypes; only the task's check judges a
kernel's draws."""


def pinning(manifest: dict) -> str:
    return f"""## Versions and pinning

Every release is a tag `vX.Y.Z` at the commit that uploaded it (tags never move). Pin it:

```python
datasets.load_dataset("{REPO_PLACEHOLDER}", "cases", split="test", revision="v{manifest['version']}")
```

or download once and load offline: `kbx dataset download {REPO_PLACEHOLDER} --revision v{manifest['version']} --to
DIR`. kbx results carry `environment.task_set_sha256`, the same hash as this card's and MANIFEST.json's: a result
belongs to this data when they are equal. Set `KBX_DATASET_REVISION` to the revision you evaluated against and
each result records it in `environment.dataset_revision`."""


def kernels_note(manifest: dict) -> str:
    run = manifest["sources"].get("kernels_run")
    if run is None:
        return "## Kernels\n\nThis build has no `kernels` config (built without `--kernels-run`)."
    where = (f"on {', '.join(run['gpus'])}" if run["gpus"] else
             "on the CPU under Triton's interpreter: correctness only, no timing (every `speedup_eager` is null; "
             "`perf_reason` says why)")
    judged = [h for h in run["task_set_sha256"] if h != manifest["task_set_sha256"]]
    drift = (f" That run judged with task set {', '.join(f'`{h[:16]}…`' for h in judged)}, not this build's: "
             "rows may differ from what today's tasks would say (the row's `task_set_sha256` tells)."
             if judged else "")
    return (f"## Kernels\n\n`kernels` is kbx run `{run['run_id']}` ({run['device']}), {where}.{drift} "
            "Upstream's pass flags and speedups (H800-based, measured by upstream's own protocol) are kept only "
            "as `upstream_*` provenance columns; they are not kbx's verdicts.")
