"""Many hosts through Ray: one evaluator actor per node, each running its own Run (reference servers, a timing
lane per GPU of that node, a pool of confined candidate processes); the driver keeps the run directory.

The driver reads the submission, prepares the run directory (resume, no duplicates), hands candidates to the
actors with a bounded number in flight per actor, and appends each result as it comes back — so the records
are chained and the summary computed exactly as in a local run. Every node uses the run's secret seed, so a
task's inputs do not depend on where its candidate ran; each record's environment names the node's GPU.

    kbx eval submission.jsonl --ray auto          # an existing cluster (`ray start --head` on the head node)
    kbx eval submission.jsonl --ray local         # a cluster of this machine only (what CI tests)
"""

from __future__ import annotations

import threading
from dataclasses import asdict
from typing import Any, Callable

from kernelbenchx.errors import UsageError
from kernelbenchx.evaluator.result import Result


def connect(address: str) -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs the ray package", hint='pip install "kernelbenchx[ray]"') from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    return ray


def node_specs(ray: Any) -> list[tuple[str, int]]:
    """(node id, GPUs) of every alive node of the cluster."""
    return [(n["NodeID"], int(n.get("Resources", {}).get("GPU", 0))) for n in ray.nodes() if n.get("Alive")]


def make_actor_class(ray: Any) -> Any:
    @ray.remote
    class NodeEvaluator:
        """The evaluator of one node."""

        def __init__(self, config: dict, seed: int, run_id: str, seed_fixed: bool) -> None:
            from kernelbenchx.evaluator.parent.context import Run, RunConfig

            self.run = Run(RunConfig(**config), seed, run_id, seed_fixed)

        def evaluate(self, item: Any) -> dict:
            from kernelbenchx.evaluator.parent.candidate import evaluate_candidate

            return evaluate_candidate(item, self.run).to_json()

        def close(self) -> None:
            self.run.close()

    return NodeEvaluator


def portable(config: Any) -> dict:
    """The RunConfig fields an actor needs (no callbacks, no output directory)."""
    fields = asdict(config)
    for name in ("progress", "out_dir", "ray", "resume", "overwrite"):
        fields.pop(name, None)
    fields["protocol"] = config.protocol
    return fields


def run_all_ray(items: list, config: Any, info: dict, writer: Any, stop: threading.Event,
                progress: Callable[[int, int, Result | None], None] | None, already: int) -> int:
    """Evaluate `items` on the cluster; results are written as they arrive. Returns how many were written."""
    ray = connect(config.ray)
    NodeEvaluator = make_actor_class(ray)
    actors = []
    for node_id, gpus in node_specs(ray):
        strategy = ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(node_id, soft=False)
        actors.append(NodeEvaluator.options(num_gpus=gpus, num_cpus=1, scheduling_strategy=strategy,
                                            max_concurrency=config.resolved_workers())
                      .remote(portable(config), int(info["seed"]), info["run_id"], bool(info.get("seed_fixed"))))
    total, written = already + len(items), 0
    if progress:
        progress(already, total, None)
    queue, in_flight = list(reversed(items)), {}
    limit = 2 * config.resolved_workers()
    try:
        while (queue or in_flight) and not stop.is_set():
            for actor in actors:
                while queue and sum(1 for a in in_flight.values() if a is actor) < limit:
                    in_flight[actor.evaluate.remote(queue.pop())] = actor
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
            for ref in done:
                in_flight.pop(ref)
                result = writer.append(Result.from_json(ray.get(ref)))
                written += 1
                if progress:
                    progress(already + written, total, result)
    finally:
        for actor in actors:
            try:
                ray.get(actor.close.remote(), timeout=60)
            except Exception:  # an actor that died or hangs is killed below either way
                pass
            ray.kill(actor)
    return written
