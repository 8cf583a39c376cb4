"""Leave out the live-code (thebe) machinery: the book is read offline.

Jupyter Book always loads ``sphinx_thebe``.  With no kernel server to reach,
its scripts only cost a page load, point at a remote example repository and,
because its set-up runs twice, declare the constant ``THEBE_JS_URL`` twice —
a JavaScript error on every page.  Readers who want to run a chapter open its
notebook locally (see "How to use this book").  This extension removes
``sphinx_thebe``'s event handlers once the configuration is read, so that it
adds no script, no configuration block and no static file.
"""

from __future__ import annotations


def _drop_thebe(app, config) -> None:
    for listeners in app.events.listeners.values():
        listeners[:] = [
            lst for lst in listeners if not getattr(lst.handler, "__module__", "").startswith("sphinx_thebe")
        ]
    app.registry.css_files[:] = [(name, attrs) for name, attrs in app.registry.css_files if "thebe" not in str(name)]


def setup(app):
    app.connect("config-inited", _drop_thebe)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
