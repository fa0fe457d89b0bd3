"""Benchmark: how the statements' embedding geometry of a real run compares with the simulated worlds'.

    python benchmarks/selectors/embedding_geometry.py [--data-dir DIR] [--seed 0]

The `pooled` selector's similarity rules use fixed cosine thresholds (neighbour floor
`pooled_neighbour_floor` 0.2, spread floor 0.5, deferral below novelty 0.3, i.e. cos 0.7), tuned on
the simulated worlds of `run.py`. This prints, for the ranked statements of a pipeline run
(sentence-transformers embeddings, as the transformation stage computes them) and for each
built-in world family: the 10/25/50/75/90 % quantiles of the pairwise cosines, the share of
pairs above 0.2, 0.5 and 0.7, and the mean neighbour weight a statement gets from all the others
(Σ clip((cos − 0.2)/0.8, 0, 1)) — raw, and with the embeddings centred on their mean and
renormalised as `pooled` does (``adat.selection.pooled.centred``). Without ``--data-dir`` it first runs ``adat demo`` (offline) into a temporary
directory.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # worlds.py, as run.py imports it


def row(name: str, e: np.ndarray) -> str:
    from adat.selection.pooled import neighbour_weights

    cos = e @ e.T
    pairs = cos[np.triu_indices(len(e), 1)]
    weight = neighbour_weights(cos, 0.2)
    np.fill_diagonal(weight, 0.0)
    q = " ".join(f"{v:5.2f}" for v in np.quantile(pairs, [0.1, 0.25, 0.5, 0.75, 0.9]))
    shares = " ".join(f"{(pairs > t).mean():5.2f}" for t in (0.2, 0.5, 0.7))
    return f"| {name:<26} | {len(e):4d} | {q} | {shares} | {weight.sum(axis=1).mean():6.1f} |"


def run_embeddings(data: Path) -> np.ndarray:
    from adat.config import cache_dir, demo_config_path, load_run_config
    from adat.embeddings import Embedder
    from adat.warehouse import read_records

    runs = [r for r in read_records(data, "runs") if r.flow == "pipeline"]
    if not runs:
        raise SystemExit(f"error: {data}: no pipeline run in this data directory; run `adat demo --data-dir {data}`")
    statements = read_records(data, "ranked_statements", run_id=runs[-1].run_id)
    cfg = load_run_config(demo_config_path()).model_copy(update={"data_dir": str(data)})
    return Embedder(cache_dir(cfg)).embed([s.text for s in statements])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, help="a data directory with a pipeline run (default: run `adat demo`)")
    parser.add_argument("--seed", type=int, default=0, help="world seed of the simulated families")
    args = parser.parse_args()

    from adat.config import HF_OFFLINE_ENV, apply_env_defaults

    apply_env_defaults(HF_OFFLINE_ENV)  # the embedding model from its installed package, no download
    data = args.data_dir
    if data is None:
        data = Path(tempfile.mkdtemp(prefix="adat-geometry-")) / "data"
        adat = shutil.which("adat", path=str(Path(sys.executable).parent)) or "adat"
        subprocess.run([adat, "demo", "--data-dir", str(data)], check=True, capture_output=True)
    import worlds

    from adat.instruction_catalog import load_instructions
    from adat.selection.pooled import centred

    print("| statements | n | cosine quantiles 10/25/50/75/90 % | share > 0.2 / 0.5 / 0.7 | neighbour weight |")
    print("|---|---|---|---|---|")
    real = run_embeddings(data)
    print(row(f"run in {data.name}", real))
    print(row("  centred", centred(real)))
    for family in worlds.FAMILIES:
        sim = worlds.make_world(family, args.seed, load_instructions()).nights["run"].embeddings
        print(row(f"{family} (seed {args.seed})", sim))
        print(row("  centred", centred(sim)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
