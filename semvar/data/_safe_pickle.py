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

import io
import math
import os
import pickle
from typing import Any, BinaryIO

import numpy as np

try:  # numpy >= 2
    from numpy._core.multiarray import _reconstruct
except ImportError:  # pragma: no cover - numpy 1.x
    from numpy.core.multiarray import _reconstruct  # type: ignore[no-redef]  # numpy 1.x: the same function

# module and name as a pickle writes them (numpy 1.x writes numpy.core, 2.x numpy._core)
_ADMITTED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
}


class RefusedPickleError(pickle.UnpicklingError, ValueError):
    """A pickle named a global outside numpy's array reconstruction; nothing it names was run."""


def _stream_size(file) -> int | None:
    """Bytes in ``file`` (a real file or an in-memory buffer), or None where it cannot be told."""
    try:
        return os.fstat(file.fileno()).st_size
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    try:
        return len(file.getbuffer())
    except (AttributeError, TypeError, ValueError):
        return None


def _requested_bytes(shape, dtype) -> int:
    """Bytes an array of ``shape`` and ``dtype`` would take, computed without allocating it."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return math.prod(int(d) for d in dims) * np.dtype(dtype).itemsize


class NumpyOnlyUnpickler(pickle.Unpickler):
    """A :class:`pickle.Unpickler` whose only globals are numpy's array reconstruction.

    Plain containers (lists, dicts, tuples, str, int, float, bytes) need no
    global and load as usual.

    Parameters
    ----------
    file : binary file
        The pickle stream.
    max_array_bytes : int, optional
        Largest array the stream may ask numpy to allocate *before* it
        supplies the data (``ndarray(shape, dtype)`` or ``_reconstruct``).
        Such an array is empty memory, so a genuine pickle asks for none of
        any size (numpy's own pickles reconstruct a ``(0,)`` array and then
        fill it from bytes that are in the stream).  The default is the size
        of the stream itself (1 GiB if that cannot be told); a request above it
        -- a 53-byte pickle of ``np.ndarray((10**11,), "f8")`` asks for
        745 GiB -- raises :class:`RefusedPickleError` before anything is
        allocated.
    """

    def __init__(self, file: BinaryIO, *, max_array_bytes: int | None = None, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        if max_array_bytes is None:
            size = _stream_size(file)
            max_array_bytes = (1 << 30) if size is None else size
        self.max_array_bytes = int(max_array_bytes)

    def _check_size(self, what: str, shape, dtype) -> None:
        try:
            need = _requested_bytes(shape, dtype)
        except (TypeError, ValueError, OverflowError):
            return  # numpy itself refuses it, with its own message
        if need > self.max_array_bytes:
            raise RefusedPickleError(
                f"refused: the pickle asks for {what} of shape {shape} "
                f"and dtype {np.dtype(dtype)} ({need:,} bytes) before giving its data; at most "
                f"{self.max_array_bytes:,} bytes are allowed (the size of the pickle), and nothing was allocated"
            )

    def _ndarray(self, shape, dtype=float, *args, **kwargs):
        if not args and "buffer" not in kwargs:  # no data given: numpy would allocate empty memory of that size
            self._check_size("an empty array", shape, dtype)
        return np.ndarray(shape, dtype, *args, **kwargs)

    def _reconstruct(self, subtype, shape, dtype, *args):
        if subtype == self._ndarray:  # the stream names numpy.ndarray, which find_class gave as the checked builder
            subtype = np.ndarray
        self._check_size("an empty array", shape, dtype)
        return _reconstruct(subtype, shape, dtype, *args)

    def find_class(self, module: str, name: str) -> Any:  # noqa: D102 - see the class docstring
        try:
            found = _ADMITTED[(module, name)]
            if found is np.ndarray:
                return self._ndarray
            if found is _reconstruct:
                return self._reconstruct
            return found
        except KeyError:
            admitted = ", ".join(f"{m}.{n}" for m, n in _ADMITTED)
            raise RefusedPickleError(
                f"refused: the pickle names the global {module}.{name}; only numpy array reconstruction "
                f"({admitted}) is admitted, and nothing was executed"
            ) from None


#: what a damaged or hostile stream raises while it is read (each becomes a ValueError naming the file)
_BROKEN = (pickle.UnpicklingError, EOFError, TypeError, AttributeError, IndexError, KeyError)


def _load(unpickler: type[pickle.Unpickler], path, source: str | None, holds: str, broken: tuple,
          *, resources: bool):
    """Read ``path`` with ``unpickler``; every failure is an error that names the file (``source``, else the path).

    A refused global stays a :class:`RefusedPickleError`; the exceptions in
    ``broken`` become ``ValueError("... is not a readable pickle of <holds>")``.
    With ``resources``, a stream that exhausts memory or the recursion limit
    is reported the same way.
    """
    where = source or str(path)
    with open(path, "rb") as fh:
        try:
            return unpickler(fh).load()
        except RefusedPickleError as exc:
            raise RefusedPickleError(f"{where}: {exc}") from None
        except (MemoryError, RecursionError) as exc:
            if not resources:
                raise
            why = "it asks for more memory than there is" if isinstance(exc, MemoryError) else "nested too deeply"
            raise ValueError(f"{where} is not a readable pickle of {holds} ({why})") from None
        except broken as exc:
            raise ValueError(f"{where} is not a readable pickle of {holds} ({type(exc).__name__}: {exc})") from None


def load_numpy_pickle(path: str | os.PathLike, *, source: str | None = None) -> object:
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
    return _load(NumpyOnlyUnpickler, path, source, "numpy arrays", _BROKEN, resources=True)


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

    def find_class(self, module: str, name: str) -> Any:  # noqa: D102 - see the class docstring
        raise RefusedPickleError(
            f"refused: the pickle names the global {module}.{name}; this pickle may hold only builtin "
            "containers and strings (no global is admitted), and nothing was executed"
        )


def load_plain_pickle(path: str | os.PathLike, *, source: str | None = None) -> object:
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
    return _load(NoGlobalsUnpickler, path, source, "builtin values", (*_BROKEN, ValueError), resources=False)
