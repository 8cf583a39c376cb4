"""Copy every PNG figure stored in the chapters into figures/, for slides.

Usage: python scripts/export_figures.py [--source notebooks] [--dest figures]

Nothing is executed: the images are the outputs saved in each executed
``notebooks/NN_name.ipynb`` (the ones the book shows).  Cell ``i`` of chapter
``NN_name`` gives ``figures/NN_name/iii.png`` (the cell index, zero-padded to
three digits); a cell with several PNG outputs gives ``iii.png``,
``iii_2.png``, ``iii_3.png``, ...
"""

from __future__ import annotations

import base64
import binascii
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _chapters import chapter_notebooks, run_cli  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def notebook_pngs(nb: nbformat.NotebookNode) -> list[tuple[str, bytes]]:
    """The PNG outputs of a notebook as ``(file name, bytes)`` pairs, in cell order.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A version-4 notebook.

    Returns
    -------
    list of (str, bytes)

    Raises
    ------
    ValueError
        If an ``image/png`` output is not base64-encoded PNG data.
    """
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        n = 0
        for output in cell.get("outputs", []):
            data = output.get("data", {}).get("image/png")
            if data is None:
                continue
            if isinstance(data, list):
                data = "".join(data)
            try:
                png = base64.b64decode(data, validate=False)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"cell {i}: an image/png output is not valid base64 ({exc})") from None
            if not png.startswith(PNG_SIGNATURE):
                raise ValueError(f"cell {i}: an image/png output does not hold PNG data")
            n += 1
            found.append((f"{i:03d}.png" if n == 1 else f"{i:03d}_{n}.png", png))
    return found


def export_figures(source: str | Path = "notebooks", dest: str | Path = "figures") -> list[Path]:
    """Write the PNG outputs of every ``source/*.ipynb`` to ``dest/<chapter>/``.

    Parameters
    ----------
    source : str or Path, default "notebooks"
        Folder of executed chapter notebooks.
    dest : str or Path, default "figures"
        Folder to write to (created; existing files of the same name are replaced).

    Returns
    -------
    list of Path
        The image files written.

    Raises
    ------
    ValueError
        If ``source`` is not a folder holding at least one ``.ipynb`` file, or
        an image output is not PNG data.
    """
    source, dest = Path(source), Path(dest)
    paths = chapter_notebooks(source)
    written = []
    for path in paths:
        images = notebook_pngs(nbformat.read(path, as_version=4))
        if not images:
            continue
        folder = dest / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        for filename, png in images:
            target = folder / filename
            target.write_bytes(png)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    return run_cli(__doc__, "figures", export_figures, lambda written, dest: f"wrote {len(written)} figures from {len({p.parent for p in written})} chapters to {dest}/", argv)


if __name__ == "__main__":
    sys.exit(main())
