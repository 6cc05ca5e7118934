"""Publishing and fetching the dataset through huggingface_hub.

``push_dataset`` checks the folder against its MANIFEST.json, refuses a tag that exists (tags never move), uploads
the folder as one commit (removing shards the new build no longer has) and tags that commit. ``download_dataset``
fetches one revision into a folder, checks it against its MANIFEST.json and loads every config from it offline.
Both take an ``api`` (an ``HfApi``; tests pass a fake with the same methods). Network failures and offline mode
become ``HubUnreachable`` with a hint.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled, \
    RepositoryNotFoundError, RevisionNotFoundError

from kernelbenchx.dataset.hub.build import MANIFEST, file_hashes
from kernelbenchx.errors import KbxError, UsageError

TAG = re.compile(r"v\d+\.\d+\.\d+([.-][0-9A-Za-z.-]+)?")
REPO_TYPE = "dataset"
TRANSPORT = ("TransportError", "ConnectionError", "Timeout")  # httpx/requests classes, whichever the hub uses


class HubUnreachable(KbxError):
    """The Hugging Face Hub cannot be reached (no network, or HF_HUB_OFFLINE is set)."""


class HubRefused(KbxError):
    """The Hub answered with an error (unknown repository or revision, no permission, an existing tag)."""


@dataclass(frozen=True)
class Pushed:
    repo_id: str
    commit: str
    tag: str | None
    url: str | None


@dataclass(frozen=True)
class Downloaded:
    repo_id: str
    revision: str
    commit: str | None
    path: Path
    rows: dict[str, dict[str, int]]


def unreachable(exc: BaseException) -> bool:
    if isinstance(exc, (OfflineModeIsEnabled, LocalEntryNotFoundError, ConnectionError, TimeoutError)):
        return True
    return any(name in cls.__name__ for cls in type(exc).__mro__ for name in TRANSPORT)


def hub_call(what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call the Hub; map its failures to KbxErrors with the next step."""
    try:
        return fn(*args, **kwargs)
    except (RepositoryNotFoundError, RevisionNotFoundError) as exc:
        raise HubRefused(f"{what}: {type(exc).__name__}: {first_line(exc)}",
                         hint="check the repository id and revision; private repositories need HF_TOKEN") from None
    except HfHubHTTPError as exc:
        raise HubRefused(f"{what}: the Hub refused: {first_line(exc)}",
                         hint="check HF_TOKEN's write access (hf auth login)") from None
    except Exception as exc:
        if unreachable(exc):
            raise HubUnreachable(f"{what}: the Hugging Face Hub is unreachable ({type(exc).__name__}: "
                                 f"{first_line(exc)})",
                                 hint="run this where huggingface.co is reachable, with HF_HUB_OFFLINE unset; "
                                      "an offline machine reads a downloaded folder with load_dataset(DIR, CONFIG)"
                                 ) from None
        raise


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def check_folder(folder: Path) -> dict:
    """The folder's manifest, after checking every file against it (no file added, missing or changed)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise UsageError(f"{folder} has no {MANIFEST}", hint="build it with `kbx dataset build DIR`")
    manifest = json.loads(path.read_text())
    actual, listed = file_hashes(folder), manifest.get("files", {})
    changed = sorted(k for k in set(actual) | set(listed) if actual.get(k) != listed.get(k))
    if changed:
        raise UsageError(f"{folder} differs from its {MANIFEST}: {', '.join(changed[:5])}",
                         hint="rebuild it with `kbx dataset build`; published files must be the built ones")
    return manifest


def push_dataset(folder: str | Path, repo_id: str, tag: str | None = None, api: Any = None,
                 private: bool = False) -> Pushed:
    """Upload a built folder to `repo_id` (a dataset repository, created if missing) and tag the commit."""
    folder = Path(folder)
    manifest = check_folder(folder)
    if tag is not None and not TAG.fullmatch(tag):
        raise UsageError(f"tag {tag!r} is not vX.Y.Z", hint=f"e.g. --tag v{manifest['version']}")
    api = api or HfApi()
    hub_call("create repository", api.create_repo, repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
    if tag is not None:
        refs = hub_call("list tags", api.list_repo_refs, repo_id, repo_type=REPO_TYPE)
        if tag in {t.name for t in refs.tags}:
            raise HubRefused(f"{repo_id} already has tag {tag}; tags never move",
                             hint="publish a new version under a new tag (bump kernelbenchx.__version__)")
    message = f"kbx {manifest['version']} ({manifest['kbx_commit']}), task set {manifest['task_set_sha256'][:12]}"
    info = hub_call("upload", api.upload_folder, repo_id=repo_id, folder_path=str(folder), repo_type=REPO_TYPE,
                    commit_message=message, delete_patterns=["data/**"])
    commit = info.oid
    if tag is not None:
        hub_call("create tag", api.create_tag, repo_id, tag=tag, revision=commit, repo_type=REPO_TYPE,
                 tag_message=message)
    return Pushed(repo_id, commit, tag, getattr(info, "commit_url", None))


def download_dataset(repo_id: str, revision: str, to: str | Path, api: Any = None,
                     cache_dir: str | None = None) -> Downloaded:
    """Fetch `revision` of `repo_id` into `to`, check it against its manifest, load every config offline."""
    to = Path(to)
    api = api or HfApi()
    info = hub_call("resolve revision", api.dataset_info, repo_id, revision=revision)
    commit = getattr(info, "sha", None)
    hub_call("download", api.snapshot_download, repo_id, repo_type=REPO_TYPE, revision=commit or revision,
             local_dir=str(to))
    manifest = check_folder(to)  # huggingface_hub's own .cache/ inside `to` is not part of the dataset
    return Downloaded(repo_id, revision, commit, to, load_all(to, manifest, cache_dir))


def load_all(folder: Path, manifest: dict, cache_dir: str | None = None) -> dict[str, dict[str, int]]:
    """Rows per config and split, read with datasets.load_dataset from the folder (no network)."""
    import datasets

    rows = {}
    for config, splits in manifest["configs"].items():
        loaded = datasets.load_dataset(str(folder), config, cache_dir=cache_dir)
        rows[config] = {split: loaded[split].num_rows for split in splits}
    return rows

