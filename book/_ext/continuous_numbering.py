"""Number the chapters of the book 1, 2, 3, ... across its parts.

Sphinx numbers every numbered toctree from 1, and Jupyter Book makes one
toctree per part, so the first chapter of each part would be chapter 1 again.
After Sphinx has assigned the numbers (``env-get-updated``), this extension
shifts the numbers of each numbered part so that they continue from the
numbered parts before it, in the section numbers, the table of contents and
the page titles alike.  It is idempotent: numbers kept from an earlier build
are moved to the same place.  Parts that are not numbered are left alone and do not
count.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes


def _shift(numbers, offset):
    if not numbers:
        return numbers
    shifted = [numbers[0] + offset, *numbers[1:]]
    return tuple(shifted) if isinstance(numbers, tuple) else shifted


def _renumber(app, env):
    changed = []
    offset = 0
    for docname in sorted(env.numbered_toctrees):
        doctree = env.get_doctree(docname)
        for toctree in doctree.findall(addnodes.toctree):
            if not toctree.get("numbered"):
                continue
            refs = [ref for _title, ref in toctree["entries"] if ref in env.toc_secnumbers]
            firsts = [nums[0] for ref in refs for nums in env.toc_secnumbers[ref].values() if nums]
            if not firsts:
                continue
            # Sphinx numbers each toctree from 1; numbers already shifted (an
            # environment kept from an earlier build) start higher
            current = min(firsts) - 1
            chapters = max(firsts) - current
            delta = offset - current
            if delta:
                for ref in refs:
                    env.toc_secnumbers[ref] = {anchor: _shift(nums, delta)
                                               for anchor, nums in env.toc_secnumbers[ref].items()}
                    for reference in env.tocs[ref].findall(nodes.reference):
                        if reference.get("secnumber"):
                            reference["secnumber"] = _shift(reference["secnumber"], delta)
                    title = env.titles.get(ref)
                    if title is not None and title.get("secnumber"):
                        title["secnumber"] = _shift(title["secnumber"], delta)
                    changed.append(ref)
            offset += chapters
    return changed


def setup(app):
    # after the toctree collector (priority 500) has assigned the numbers
    app.connect("env-get-updated", _renumber, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
