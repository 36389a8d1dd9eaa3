"""Cache keys: short fingerprints of matrices and labels, so a cache key holds plain strings, never a tensor."""
import hashlib
import threading
import weakref

import numpy as np
import torch


def digest(values: np.ndarray) -> str:
    """A short fingerprint of a matrix: cache keys hold this, never the matrix."""
    return hashlib.blake2b(np.ascontiguousarray(values), digest_size=16).hexdigest()


# Hashing a 1,024 x 1,024 map costs about 5 ms, and a GPT-2-sized heads screen shows a dozen on every
# rerun. Maps usually are views of a cached trace's tensor, which nobody mutates: their fingerprint is
# remembered per base tensor (and forgotten with it), keyed also on torch's version counter of in-place changes.
_FINGERPRINTS: dict[int, tuple] = {}  # id(base tensor) -> (weak reference to it, {view: digest})
_FINGERPRINTS_LOCK = threading.Lock()


def _forget(base_id: int) -> None:
    with _FINGERPRINTS_LOCK:
        _FINGERPRINTS.pop(base_id, None)


def labels_key(labels) -> str:
    """Axis labels as one short cache-key string: Streamlit's cache hashes a tuple element by element,
    about 1 ms for 64 labels, a dozen charts a rerun."""
    return hashlib.blake2b("\x1f".join(labels).encode(), digest_size=16).hexdigest()


def fingerprint(matrix) -> str:
    """digest() of a tensor or array, remembered for views of the same tensor while it lives.

    Keyed by id() with an identity check, not by the tensor: weak-keyed dicts compare keys with ==,
    which for tensors is elementwise."""
    if not isinstance(matrix, torch.Tensor):
        return digest(np.asarray(matrix))
    base = matrix._base if matrix._base is not None else matrix
    where = (matrix.storage_offset(), tuple(matrix.shape), matrix.stride(), matrix.dtype, base._version)
    with _FINGERPRINTS_LOCK:
        ref, known = _FINGERPRINTS.get(id(base), (None, {}))
        if ref is None or ref() is not base:  # first time, or an old entry for a dead tensor with the same id
            ref, known = weakref.ref(base, lambda _, i=id(base): _forget(i)), {}
            _FINGERPRINTS[id(base)] = (ref, known)
        found = known.get(where)
    if found is None:
        found = digest(np.asarray(matrix.detach().float().cpu()))
        with _FINGERPRINTS_LOCK:
            known[where] = found
    return found
