"""Reads submissions: JSONL (ours or upstream's), or a folder of ``<stem>.py`` files.

Every line or file becomes either a Candidate or an InputProblem; one bad line never stops the rest.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from kernelbenchx.dataset.registry import UnknownTask, by_stem, get_task, normalize_id
from kernelbenchx.errors import SubmissionError
from kernelbenchx.evaluator.reasons import Reason
from kernelbenchx.evaluator.result import CandidateInfo

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
CHAT_TOKENS = ("<|im_end|>", "<|EOT|>", "<|endoftext|>")
SEPARATOR = "#" * 146  # upstream's reference/test separator: only the part above it is a submission




@dataclass(frozen=True)
class Candidate:
    task_id: str
    code: str
    source: str  # "file.jsonl:LINE" or "folder/stem.py"
    sample_id: int = 0
    model: str | None = None
    method: str | None = None
    round: int | None = None

    @property
    def code_sha256(self) -> str:
        return hashlib.sha256(self.code.encode()).hexdigest()

    @property
    def key(self) -> str:
        """Identity used by --resume and verification: task, sample and code, not where the line came from
        (renaming the submission file keeps its records)."""
        return f"{self.task_id}|{self.sample_id}|{self.model or ''}|{self.method or ''}|{self.code_sha256[:32]}"

    def info(self) -> CandidateInfo:
        return CandidateInfo(self.task_id, self.source, self.code_sha256, self.sample_id, self.model, self.method,
                             self.round)


@dataclass(frozen=True)
class InputProblem:
    source: str
    reason: Reason  # an input_error reason: malformed_json, unknown_task, empty_code, not_utf8, ...
    message: str
    task_id: str | None = None

    @property
    def key(self) -> str:
        return f"input_error|{self.source}"

    def info(self) -> CandidateInfo:
        return CandidateInfo(self.task_id, self.source, None)


def strip_fences(text: str) -> str:
    """The code inside the first markdown fence (```python, ```py, bare ```), or the text itself."""
    for token in CHAT_TOKENS:
        text = text.replace(token, "")
    blocks = FENCE.findall(text)
    if blocks:
        python = [body for lang, body in blocks if lang.lower() in ("python", "py", "python3", "")]
        text = python[0] if python else blocks[0][1]
    if SEPARATOR in text:
        text = text.split(SEPARATOR, 1)[0]
    return text.strip("\n") + "\n" if text.strip() else ""


def read_submission(path: str | Path) -> Iterator[Candidate | InputProblem]:
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"submission not found: {path}")
    if path.is_dir():
        yield from read_folder(path)
    elif path.suffix == ".py":
        yield from read_py_file(path, f"{path.name}")
    else:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise SubmissionError(f"cannot read submission {path}: {exc.strerror}") from exc
        yield from read_jsonl(raw, path.name)


def read_jsonl(raw: bytes, name: str) -> Iterator[Candidate | InputProblem]:
    samples: dict[str, int] = {}
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        source = f"{name}:{number}"
        item = parse_line(line, source)
        if isinstance(item, Candidate) and item.sample_id < 0:  # no sample_id given: number per task
            index = samples.get(item.task_id, 0)
            samples[item.task_id] = index + 1
            item = Candidate(item.task_id, item.code, item.source, index, item.model, item.method, item.round)
        yield item


def parse_line(line: bytes, source: str) -> Candidate | InputProblem:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return InputProblem(source, Reason.NOT_UTF8, f"line is not valid UTF-8 (byte {exc.start})")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return InputProblem(source, Reason.MALFORMED_JSON, f"malformed JSON: {exc.msg} at column {exc.colno}")
    if not isinstance(obj, dict):
        return InputProblem(source, Reason.MALFORMED_JSON, f"expected a JSON object, got {type(obj).__name__}")
    raw_id = obj.get("task_id") or obj.get("file")
    raw_code = obj.get("code") if "code" in obj else obj.get("predict")
    if not isinstance(raw_id, str) or not raw_id.strip():
        return InputProblem(source, Reason.MISSING_FIELD, "no task id: give 'task_id' (or upstream 'file')")
    if not isinstance(raw_code, str):
        return InputProblem(source, Reason.MISSING_FIELD, "no code: give 'code' (or upstream 'predict') as a string",
                            raw_id)
    task_id = resolve_task_id(raw_id)
    if isinstance(task_id, InputProblem):
        return InputProblem(source, task_id.reason, task_id.message, raw_id)
    code = strip_fences(raw_code)
    if not code.strip():
        return InputProblem(source, Reason.EMPTY_CODE, "code is empty (after removing markdown fences)", task_id)
    sample_id = obj.get("sample_id", -1)
    if not isinstance(sample_id, int) or isinstance(sample_id, bool):
        return InputProblem(source, Reason.BAD_FIELD, "sample_id must be an integer", task_id)
    round_ = obj.get("round")
    if round_ is not None and (not isinstance(round_, int) or isinstance(round_, bool)):
        return InputProblem(source, Reason.BAD_FIELD, "round must be an integer", task_id)
    model, method = obj.get("model"), obj.get("method")
    for field_name, value in (("model", model), ("method", method)):
        if value is not None and not isinstance(value, str):
            return InputProblem(source, Reason.BAD_FIELD, f"{field_name} must be a string", task_id)
    return Candidate(task_id, code, source, sample_id, model, method, round_)


def resolve_task_id(raw_id: str) -> str | InputProblem:
    try:
        return get_task(raw_id).id
    except UnknownTask as exc:
        stem_match = by_stem(normalize_id(raw_id).split("/")[-1]) if "/" not in normalize_id(raw_id) else None
        if stem_match is not None:
            return stem_match.id
        return InputProblem("", Reason.UNKNOWN_TASK, str(exc))


def read_py_file(path: Path, source: str) -> Iterator[Candidate | InputProblem]:
    task = by_stem(path.stem)
    if task is None:
        yield InputProblem(source, Reason.UNKNOWN_TASK, f"no task has stem {path.stem!r} (file {path.name})")
        return
    try:
        code = strip_fences(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        yield InputProblem(source, Reason.NOT_UTF8, f"file is not valid UTF-8 (byte {exc.start})", task.id)
        return
    if not code.strip():
        yield InputProblem(source, Reason.EMPTY_CODE, "file is empty", task.id)
        return
    yield Candidate(task.id, code, source, 0)


def read_folder(folder: Path) -> Iterator[Candidate | InputProblem]:
    files = sorted(p for p in folder.rglob("*") if p.suffix in (".py", ".jsonl") and p.is_file())
    if not files:
        raise SubmissionError(f"no .py or .jsonl files in {folder}")
    for path in files:
        source = str(path.relative_to(folder))
        if path.suffix == ".py":
            yield from read_py_file(path, source)
        else:
            yield from read_jsonl(path.read_bytes(), source)
