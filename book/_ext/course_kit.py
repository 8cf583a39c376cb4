"""The course kit in the built book: student notebooks, and an edition without solutions.

Every HTML build writes a hand-out copy of each chapter notebook (solutions
removed, outputs cleared, plain Jupyter Markdown: ``scripts/make_student.py``) to ``student/<name>.ipynb``
in the output folder, and adds it to the download menu of the chapter's page
("student .ipynb").

With ``hide_solutions = True`` (the student edition, ``make book-student``) the
build also

* leaves out the gated solutions (``{solution-start}`` ... ``{solution-end}``)
  together with the code cells between the two markers.  sphinx-exercise hides
  plain ``{solution}`` directives itself, but for gated ones it drops only the
  start marker, which leaves the solution's cells on the page and an end marker
  that the HTML writer cannot render;
* replaces the chapter notebooks offered for download (``_sources/``) by the
  hand-out copies, so that no downloadable notebook holds a solution.

For the single-page build that ``make pdf`` prints, it lends the HTML
handlers of every node to that builder (see ``_complete_singlehtml_handlers``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

_FOLDER = "student"  # where the hand-out copies go, inside the HTML output


class _hidden_gate(nodes.Element):
    """Placeholder for a suppressed ``{solution-start}``: removed, with what it gates, before writing."""


def _make_student_module(srcdir: str):
    path = Path(srcdir) / "scripts" / "make_student.py"
    name = "_semvar_book_make_student"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


def _hidden_solution_start_directive():
    from sphinx_exercise.directive import SolutionStartDirective

    class HiddenSolutionStart(SolutionStartDirective):
        def run(self):
            super().run()  # records the marker, so that sphinx-exercise still checks the pairing
            return [_hidden_gate()]

    return HiddenSolutionStart


class _RemoveHiddenGates(SphinxTransform):
    """Remove each suppressed gate and its siblings up to and including the matching solution-end."""

    default_priority = 9  # before sphinx-exercise merges gated solutions (priority 10)

    def apply(self):
        from sphinx_exercise.nodes import solution_end_node

        for gate in list(self.document.findall(_hidden_gate)):
            parent = gate.parent
            start = parent.index(gate)
            stop = next((k for k in range(start + 1, len(parent.children))
                         if isinstance(parent.children[k], solution_end_node)), None)
            if stop is None:  # sphinx-exercise reports the unpaired marker itself
                parent.remove(gate)
                continue
            for child in parent.children[start:stop + 1]:
                parent.remove(child)


def _config_inited(app, config) -> None:
    if config.hide_solutions:
        app.add_directive("solution-start", _hidden_solution_start_directive(), override=True)


def _chapter_sources(app) -> dict[str, Path]:
    """docname -> source path of every chapter notebook that the book builds."""
    env = app.env
    found = {}
    for docname in sorted(env.found_docs):
        path = Path(env.doc2path(docname))
        if path.suffix == ".ipynb" and path.is_file():
            found[docname] = path
    return found


def _add_download_button(app, pagename, templatename, context, doctree) -> None:
    if app.config.hide_solutions or app.builder.name != "html":
        return  # in the student edition the notebook download already is the hand-out copy
    if pagename not in _chapter_sources(app):
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            name = Path(pagename).name + ".ipynb"
            group["buttons"].insert(1, {
                "type": "link",
                "url": f"{context['pathto'](_FOLDER, 1)}/{name}",
                "text": "student .ipynb",
                "tooltip": "Download the notebook without solutions",
                "icon": "fas fa-user-graduate",
                "label": "download-student-notebook-button",
            })


def _write_handouts(app, exception) -> None:
    if exception is not None or app.builder.name != "html":
        return
    chapters = _chapter_sources(app)
    if not chapters:
        return
    make_student = _make_student_module(app.srcdir)
    import nbformat

    outdir = Path(app.outdir)
    (outdir / _FOLDER).mkdir(exist_ok=True)
    for docname, path in chapters.items():
        copy = make_student.handout(nbformat.read(path, as_version=4), path.name, edition="student")
        nbformat.write(copy, outdir / _FOLDER / path.name)
        if app.config.hide_solutions:
            source = outdir / "_sources" / (docname + ".ipynb")
            if source.exists():
                nbformat.write(copy, source)


def _complete_singlehtml_handlers(app) -> None:
    """Give the single-page builder the HTML handlers of every node.

    Sphinx looks translation handlers up by builder name first and by format
    only when the name has none; sphinx-exercise registers its nodes under
    ``singlehtml``, so the HTML handlers of other extensions' nodes (myst-nb's
    folded code cells) go missing in the single-page build of ``make pdf``.
    """
    handlers = app.registry.translation_handlers
    name = app.builder.name
    if name != app.builder.format and name in handlers:
        for node, pair in handlers.get(app.builder.format, {}).items():
            handlers[name].setdefault(node, pair)


def setup(app):
    app.setup_extension("sphinx_exercise")
    app.connect("builder-inited", _complete_singlehtml_handlers)
    app.add_node(_hidden_gate)
    app.add_transform(_RemoveHiddenGates)
    app.connect("config-inited", _config_inited)
    # after sphinx-book-theme has made its header buttons (priority 501)
    app.connect("html-page-context", _add_download_button, priority=510)
    app.connect("build-finished", _write_handouts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
