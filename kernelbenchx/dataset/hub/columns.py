"""Every column of every config, once: its type (the parquet schema and the datasets features) and what it
means (the card's column tables). A row builder that emits another set of keys fails the build."""

from __future__ import annotations

from datasets import Features, Value

try:
    from datasets import List
except ImportError:  # datasets < 4
    from datasets import Sequence as List

S, I, F, B, BIN = Value("string"), Value("int64"), Value("float64"), Value("bool"), Value("binary")
DEVIATION = {"kind": S, "upstream": S, "kbx": S, "reason": S, "in_prompt": B}

COLUMNS: dict[str, list[tuple[str, object, str]]] = {
    "tasks": [
        ("id", S, "task id, `Category/stem`"),
        ("category", S, "one of the 15 categories"),
        ("stem", S, "the task's name within its category"),
        ("difficulty", I, "1 (easy) … 5 (hard), from the KernelBench-X catalogue"),
        ("entry", S, "the function a submission must define"),
        ("signature", S, "its Python signature"),
        ("description", S, "what it computes"),
        ("math", S, "the formula, where one helps"),
        ("prompt", S, "the exact prompt kbx gives a model (`kbx tasks show ID`)"),
        ("contract", S, "the numerical contract as stated in the prompt"),
        ("dtypes", S, "input and output dtypes, in words"),
        ("rtol", F, "relative tolerance"),
        ("atol", F, "absolute tolerance (scaled per `atol_scale`)"),
        ("atol_scale", S, "`abs`, `rms` (× RMS of the reference) or `bound` (× the task's error bound)"),
        ("rel_rms", F, "bound on ‖out − ref‖₂ / ‖ref‖₂, or null"),
        ("tf32", B, "TF32 products admitted"),
        ("accumulation", S, "required accumulation precision"),
        ("deterministic", B, "null: exact outputs bitwise, floats within tolerance; true: bitwise; false: free"),
        ("seed_kwarg", S, "RNG tasks: the argument whose value must change the output, or null"),
        ("mutates", List(I), "positional arguments updated in place (compared after the call)"),
        ("layouts", List(S), "input layouts the cases use (transposed, sliced, strided, offset, expanded)"),
        ("custom_check", B, "judged by the task's own check (decompositions, RNG laws, quantization)"),
        ("stochastic", B, "the reference draws random numbers (its outputs are one sample of a law)"),
        ("reference_source", S, "source of the PyTorch reference function"),
        ("deviations", List(DEVIATION), "how the task differs from the seed paper's (kind, upstream, kbx, reason)"),
        ("in_paper", B, "one of the seed paper's 176 tasks"),
        ("faithful", B, "semantics and judging equal upstream's (`--task-set faithful`)"),
        ("task_sha256", S, "sha256 of the task module's source"),
    ],
    "cases": [
        ("task_id", S, "task id"),
        ("case", S, "case name; `@transposed`, `@sliced`, `@strided`, `@offset`, `@expanded` mark strided views"),
        ("index", I, "position among the task's stage-1 cases (the order kbx runs them)"),
        ("inputs", BIN, "safetensors bytes: every input tensor (contiguous values) and, for views, its storage"),
        ("inputs_structure", S, "JSON: the call `{args, kwargs}` with tensors as `{\"tensor\": key}`"),
        ("input_layouts", S, "JSON list per tensor: key, dtype, shape, stored, strides, storage_offset, storage"),
        ("input_dtypes", List(S), "dtype of each input tensor (order of `input_layouts`)"),
        ("input_shapes", List(List(I)), "shape of each input tensor"),
        ("has_views", B, "some input is a non-contiguous or offset view (rebuild it from its storage)"),
        ("expected", BIN, "safetensors bytes: the reference's output (and final values of in-place inputs)"),
        ("expected_structure", S, "JSON: the output's structure, tensors as `{\"tensor\": key}`"),
        ("expected_layouts", S, "JSON list per output tensor (as `input_layouts`; values only, no storage)"),
        ("expected_dtypes", List(S), "dtype of each output tensor"),
        ("expected_shapes", List(List(I)), "shape of each output tensor"),
        ("stochastic", B, "the reference samples: compare with the task's contract (its check), never bitwise"),
        ("reference_rng_seed", I, "torch.manual_seed the reference ran under (fixed per task and case)"),
        ("device", S, "device that computed `expected`"),
        ("torch", S, "torch version that computed `expected`"),
        ("torch_git", S, "torch build (git revision)"),
        ("cpu_capability", S, "torch's CPU kernel path (outputs may differ in the last bits on another)"),
        ("task_sha256", S, "sha256 of the task module's source"),
    ],
    "kernels": [
        ("key", S, "kbx record key: task|sample|model|method|code sha256 prefix"),
        ("task_id", S, "task id as kbx resolved it (the submitted id for input errors)"),
        ("submission_line", I, "line of the evaluated submission"),
        ("sample_id", I, "sample id (corpus: 2·(corpus_line − 1) + side)"),
        ("model", S, "model that wrote the kernel, when known"),
        ("method", S, "generation method (corpus: GEAK)"),
        ("round", I, "refinement round"),
        ("code", S, "the submitted code, verbatim"),
        ("code_sha256", S, "sha256 of `code`"),
        ("evaluated_code_sha256", S, "sha256 of the code kbx evaluated (fences and upstream's test section removed)"),
        ("verdict", S, "kbx's verdict"),
        ("reason", S, "kbx's reason code"),
        ("message", S, "kbx's reason message"),
        ("speedup_eager", F, "kbx's live speedup over PyTorch eager (null when not timed)"),
        ("speedups", S, "JSON: kbx's speedup geomean per baseline"),
        ("perf_status", S, "measured, skipped (with perf_reason) or implausible"),
        ("perf_reason", S, "why timing was skipped"),
        ("gpu", S, "GPU of the run (null on the CPU interpreter)"),
        ("device", S, "device of the run"),
        ("environment", S, "JSON: the record's environment fingerprint"),
        ("run_id", S, "kbx run id"),
        ("task_set_sha256", S, "task-set hash of the kbx that judged it"),
        ("run_seed", I, "the run's published secret seed"),
        ("corpus_line", I, "provenance: line of upstream's all_records.jsonl"),
        ("corpus_side", S, "provenance: `before` or `after` side of that record"),
        ("upstream_task_id", S, "provenance: upstream's task file"),
        ("upstream_transition", S, "provenance: upstream's round transition"),
        ("upstream_kind", S, "provenance: upstream's transition kinds"),
        ("upstream_call_ok", B, "provenance: upstream's own call flag (not kbx's verdict)"),
        ("upstream_exe_ok", B, "provenance: upstream's own correctness flag (not kbx's verdict)"),
        ("upstream_perf_ok", B, "provenance: upstream's own perf flag"),
        ("upstream_speedup", F, "provenance: upstream's speedup, on upstream's GPU and protocol"),
        ("upstream_runtime_ms", F, "provenance: upstream's runtime"),
    ],
    "golden": [
        ("task_id", S, "task id"),
        ("case", I, "perf case index"),
        ("name", S, "perf case name"),
        ("eager_ms", F, "PyTorch eager median, ms"),
        ("compile_ms", F, "torch.compile median, ms (null when not measured)"),
        ("rel_ci95", F, "relative half-width of the median's 95% CI"),
        ("flops", F, "FLOPs of the case (cost model)"),
        ("bytes", F, "compulsory bytes of the case (cost model)"),
        ("error", S, "why the case has no timing"),
        ("target", S, "hardware target (the split name)"),
        ("environment", S, "JSON: the measuring machine (GPU, driver, clocks, torch, triton)"),
        ("protocol", S, "JSON: the timing protocol"),
    ],
    "solutions": [
        ("task_id", S, "task id"),
        ("path", S, "`Category/stem.py` under kernelbenchx/solutions"),
        ("code", S, "kbx's reference Triton solution"),
        ("code_sha256", S, "sha256 of `code`"),
        ("task_sha256", S, "sha256 of the task module the solution was written against"),
    ],
}


def features(config: str) -> Features:
    return Features({name: kind for name, kind, _ in COLUMNS[config]})


def check_rows(config: str, rows: list[dict]) -> None:
    """Every row has exactly the config's columns (a builder bug otherwise)."""
    names = [name for name, _, _ in COLUMNS[config]]
    for row in rows:
        if set(row) != set(names):
            raise ValueError(f"{config}: row columns {sorted(set(row) ^ set(names))} differ from the schema")
