"""The versioned Hugging Face dataset: build the folder, push it with a tag, download a pinned revision.

    from kernelbenchx.dataset.hub import build_dataset, push_dataset, download_dataset
    built = build_dataset("hf/", kernels_run="runs/corpus", corpus="../shared/upstream/all_records.jsonl")
    push_dataset("hf/", "ORG/kernelbench-x", tag="v0.2.0")
    download_dataset("ORG/kernelbench-x", "v0.2.0", "data/")

Modules: build.py (configs → parquet, MANIFEST.json), rows.py (tasks, cases, golden, solutions), tensors.py
(safetensors encoding), kernels.py (corpus → submission, run → rows), columns.py (the schema), card.py (the
README card), publish.py (huggingface_hub).
"""

from kernelbenchx.dataset.hub.build import CONFIGS, Built, build_dataset
from kernelbenchx.dataset.hub.kernels import corpus_submission
from kernelbenchx.dataset.hub.publish import Downloaded, Pushed, download_dataset, push_dataset

__all__ = ["CONFIGS", "Built", "Downloaded", "Pushed", "build_dataset", "corpus_submission", "download_dataset",
           "push_dataset"]
