"""Reading numpy arrays out of a pickle without running anything else.

A pickle is a small program: loading one calls whatever callables it names,
so an ordinary :func:`pickle.load` of a downloaded file can run arbitrary code.
The only way a pickle obtains a callable is through
:meth:`pickle.Unpickler.find_class`, called when the stream names a global and
before anything can call it.  :class:`NumpyOnlyUnpickler` admits exactly the
globals that numpy's own array pickling uses (``_reconstruct``, ``ndarray``,
``dtype``) and refuses every other one on sight, so a stream that names, say,
``os.system`` stops with :class:`RefusedPickleError` at that name.  Persistent
ids are refused as well (the default :class:`pickle.Unpickler` behaviour).
:class:`NoGlobalsUnpickler` (:func:`load_plain_pickle`) is stricter still: it
admits no global at all, for pickles that hold only builtin values.
"""

from __future__ import annotations

import pickle

import numpy as np

try:  # numpy >= 2
    from numpy._core.multiarray import _reconstruct
except ImportError:  # pragma: no cover - numpy 1.x
    from numpy.core.multiarray import _reconstruct

# module and name as a pickle writes them (numpy 1.x writes numpy.core, 2.x numpy._core)
_ADMITTED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
}


class RefusedPickleError(pickle.UnpicklingError, ValueError):
    """A pickle named a global outside numpy's array reconstruction; nothing it names was run."""


class NumpyOnlyUnpickler(pickle.Unpickler):
    """A :class:`pickle.Unpickler` whose only globals are numpy's array reconstruction.

    Plain containers (lists, dicts, tuples, str, int, float, bytes) need no
    global and load as usual.
    """

    def find_class(self, module, name):  # noqa: D102 - see the class docstring
        try:
            return _ADMITTED[(module, name)]
        except KeyError:
            admitted = ", ".join(f"{m}.{n}" for m, n in _ADMITTED)
            raise RefusedPickleError(
                f"refused: the pickle names the global {module}.{name}; only numpy array reconstruction "
                f"({admitted}) is admitted, and nothing was executed"
            ) from None


def load_numpy_pickle(path, *, source: str | None = None):
    """Load a pickle that may hold only containers and numpy arrays.

    Parameters
    ----------
    path : path-like
        The pickle file.
    source : str, optional
        Where the file came from (a URL), for error messages.

    Returns
    -------
    object
        The unpickled object.

    Raises
    ------
    RefusedPickleError
        The stream names any other global (it is a :class:`ValueError` and a
        :class:`pickle.UnpicklingError`); nothing named was called.
    ValueError
        The file is not a readable pickle (truncated, garbage).

    Examples
    --------
    >>> import io, pickle, numpy as np
    >>> buf = io.BytesIO(pickle.dumps([{"id": 0, "x": np.arange(3, dtype=np.float32)}]))
    >>> NumpyOnlyUnpickler(buf).load()[0]["x"]
    array([0., 1., 2.], dtype=float32)
    >>> NumpyOnlyUnpickler(io.BytesIO(pickle.dumps(print))).load()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    semvar.data._safe_pickle.RefusedPickleError: refused: the pickle names the global builtins.print; ...
    """
    where = source or str(path)
    with open(path, "rb") as fh:
        try:
            return NumpyOnlyUnpickler(fh).load()
        except RefusedPickleError as exc:
            raise RefusedPickleError(f"{where}: {exc}") from None
        except (pickle.UnpicklingError, EOFError, TypeError, AttributeError, IndexError, KeyError) as exc:
            raise ValueError(f"{where} is not a readable pickle of numpy arrays ({type(exc).__name__}: {exc})") from None


class NoGlobalsUnpickler(pickle.Unpickler):
    """A :class:`pickle.Unpickler` that admits no global at all.

    Every :meth:`find_class` call is refused, so only what the pickle
    protocol builds without a callable can load: ``None``, booleans, ints,
    floats, str, bytes, tuples, lists, dicts, sets and frozensets (complex
    numbers, and bytearrays below protocol 5, need a global and are refused).
    No object of any class, numpy's included, can be reconstructed, and nothing
    the stream names is ever called.  Extension codes (``EXT1``-``EXT4``) and
    persistent ids resolve through :meth:`find_class` or are refused by
    :class:`pickle.Unpickler` itself, so they fail the same way.
    """

    def find_class(self, module, name):  # noqa: D102 - see the class docstring
        raise RefusedPickleError(
            f"refused: the pickle names the global {module}.{name}; this pickle may hold only builtin "
            "containers and strings (no global is admitted), and nothing was executed"
        )


def load_plain_pickle(path, *, source: str | None = None):
    """Load a pickle that may hold only builtin values: no global of any kind.

    Parameters
    ----------
    path : path-like
        The pickle file.
    source : str, optional
        Where the file came from (a URL), for error messages.

    Returns
    -------
    object
        The unpickled object (lists, dicts, tuples, str, numbers, ...).

    Raises
    ------
    RefusedPickleError
        The stream names a global, any global (a numpy array's included);
        nothing named was called.
    ValueError
        The file is not a readable pickle (truncated, garbage).

    Examples
    --------
    >>> import io, pickle, numpy as np
    >>> NoGlobalsUnpickler(io.BytesIO(pickle.dumps([{"id": "q1", "text": ["a", "b"]}]))).load()
    [{'id': 'q1', 'text': ['a', 'b']}]
    >>> NoGlobalsUnpickler(io.BytesIO(pickle.dumps(np.arange(2)))).load()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    semvar.data._safe_pickle.RefusedPickleError: refused: the pickle names the global numpy..._reconstruct; ...
    """
    where = source or str(path)
    with open(path, "rb") as fh:
        try:
            return NoGlobalsUnpickler(fh).load()
        except RefusedPickleError as exc:
            raise RefusedPickleError(f"{where}: {exc}") from None
        except (pickle.UnpicklingError, EOFError, TypeError, AttributeError, IndexError, KeyError, ValueError) as exc:
            raise ValueError(f"{where} is not a readable pickle of builtin values ({type(exc).__name__}: {exc})") from None
