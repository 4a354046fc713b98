"""What the two reference fixtures' scripts (make_pretrained_fixture, make_causal_lm_fixture)
store about their making, and how they write the fixture: the tests check the first
(tests/helpers.assert_made_from) before they trust the numbers. Needs torch and transformers,
like those scripts."""

import hashlib

import numpy as np


def provenance(weights):
    """The arrays that say what made a reference: ``model_sha256``, the sha256 of the file
    ``weights`` (a Path) that the reference read, and the ``versions`` of torch and
    transformers that computed it."""
    import torch
    import transformers

    versions = f"torch {torch.__version__}, transformers {transformers.__version__}"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    return {"model_sha256": np.array(digest), "versions": np.array(versions)}


def write_fixture(out, arrays):
    """Write ``arrays`` {name: array} compressed to ``out`` (a .npz Path) and say its size."""
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **arrays)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB)")
