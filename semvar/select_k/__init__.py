"""Choosing the number of meanings K of a judged graph.

Algorithm 1 of Liu (2025) needs the number of clusters ``K``; section 2.4 of
the paper proposes network cross-validation (NCV, Chen & Lei 2018) to choose
it.  This package holds NCV and the alternatives that chapter 4 compares:

- :func:`ncv` - network cross-validation: node folds; the block model is fitted
  on the *rows* of the training nodes (a rectangular ``n_train x n`` block, so
  every node, held-out ones included, gets a label from its links to the
  training nodes) and scored on the held-out ``n_test x n_test`` block.  With
  ``repeats`` and ``se_rule`` it becomes the small-sample variant (several
  splits, the one-standard-error rule).
- :func:`ecv` - edge cross-validation (Li, Levina & Zhu 2020): hold out random
  node *pairs*, complete the matrix by a rank-``K`` fit, score the held-out
  pairs.  It also accepts a partially judged graph (an observed-pair mask).
- :func:`eigengap` - the largest gap in the spectrum of ``D^{-1/2} A D^{-1/2}``,
  or (``threshold="bulk"``) the number of eigenvalues above the edge of the
  noise bulk.
- :func:`bethe_hessian` - the number of negative eigenvalues of the Bethe-Hessian
  ``H(r) = (r^2 - 1) I - r A + D`` with ``r = sqrt(mean degree)`` (Saade,
  Krzakala & Zdeborova 2014; Le & Levina 2015).
- :func:`icl` - the integrated classification likelihood (Biernacki, Celeux &
  Govaert 2000; in its exact form for block models, Come & Latouche 2015) of
  the spectral clusters for each ``K``, under the judge model of Liu's
  equations (3)-(4) (one ``p`` within meanings, one ``q`` between) or a full
  block model; :func:`bic` is its large-sample (BIC) approximation.
- :func:`consensus` - the median of several rules' answers.
- :func:`auto` - the default: the judge-model ICL, and on graphs of at most
  ten texts the larger of its answer and the eigengap's; chapter 4's study of
  graphs of 5-300 texts found it best or near-best in every regime (see its
  docstring).  It is deterministic.

All return a :class:`KSelection` (``int(result)`` is the chosen ``K``).
Each rule is registered once, where it is defined, by the decorator
:func:`rule`, with its defaults (those of its function's signature) and what
it reads (the spectrum, the verdicts, random numbers); a new rule is one
decorated function, and every list of rules (:data:`METHODS`, this package's
names, the messages, the pipeline's ``k=``, the registry-driven tests,
chapter 4's study :mod:`semvar.experiments.select_k_small`) reads the registry;
:func:`choose_k` runs a rule by name through that registry, and so do
:func:`consensus`, the sparse route below and :func:`select_with_core`, the
entry of :mod:`semvar.pipeline` (which also hands back the texts with an edge
and the spectrum the rule read, for their clustering).  Dense input costs the
rules ``O(n^2)`` memory and up to ``O(n^3)`` time, fine up to a few thousand
texts.

The modules: :mod:`~semvar.select_k.cv` (NCV, ECV),
:mod:`~semvar.select_k.spectrum` (eigengap, Bethe-Hessian),
:mod:`~semvar.select_k.likelihood` (ICL, BIC),
:mod:`~semvar.select_k.combine` (consensus, auto) and
:mod:`~semvar.select_k.choose` (by name); every public name is importable
from :mod:`semvar.select_k` itself.

Large sparse graphs
-------------------
:func:`auto`, :func:`icl` (judge model) and :func:`eigengap` (largest gap)
read a graph only through the leading eigenpairs of ``D^{-1/2} A D^{-1/2}``
and, for the ICL, the number of TRUE verdicts inside the clusters.  For a
sparse graph whose core (the texts with an edge) has more than
``SPARSE.n`` (500) texts they never make it dense: the ``k_max + 1`` leading
eigenpairs come from ARPACK's Lanczos solver applied to the sparse graph as
an operator, and the verdicts inside the clusters of a labelling ``z`` are
summed over the stored edges (``trace(Z^T A Z) / 2`` for the indicator matrix
``Z``, ``O(edges)``); memory is ``O(edges + n k_max)``.  The result is that
of the dense route: the same eigenvalues to rounding, the same clusters, the
same counts (exactly, for 0/1 verdicts).  The exception is a core in several
connected components, whose leading eigenvalue 1 is repeated, once per
component: such a core keeps the dense route up to ``SPARSE.tied_n`` (2000)
texts, and above it is solved one component at a time (its spectrum is the
union of theirs; the eigenvalue 1 of each comes with ``D^{1/2}`` times its
indicator, which a Lanczos solve of the whole core, from one start vector,
would find once).  Above
``SPARSE.exact_n`` (20,000) texts (where the dense route would need tens of GiB)
the ICL compares only the ``K`` whose eigenvalues stand above the noise bulk
of a graph of the same density: the top of the bulk is ever more crowded as
``n`` grows, and its eigenvectors, costly to converge, would cluster noise.
The eigenpairs are first solved loosely (1 % relative residual): the first
eigenvalue inside the bulk is then placed below the edge by its Ritz value
plus its residual, while those above the bulk, far from the rest, have
converged to machine precision (their residuals are checked; where either
fails, the solve is repeated to a tolerance of ``1e-4``).
:func:`semvar.pipeline.graph_entropy` then clusters the core from the same
eigenvectors, so choosing ``K`` costs about half as much again as one
clustering with ``K`` given (1.47 times at ``n = 10^6``,
``data/benchmark_spectral.txt``).
The other rules densify sparse input.

Losses of the cross-validation methods
--------------------------------------
For held-out pairs ``(i, j)`` with observed ``A_ij`` and fitted block
probability ``P_ij = B[g_i, g_j]``:

- ``"l2"``: ``sum (A_ij - P_ij)^2`` (Chen & Lei's main loss);
- ``"deviance"``: the binomial deviance ``-2 sum [A_ij log P_ij + (1 - A_ij) log(1 - P_ij)]``,
  with ``P`` clipped to ``[1e-6, 1 - 1e-6]``.

Both are averaged over folds (repetitions for ECV); the smallest wins.

Isolated texts
--------------
A text that the judge found equivalent to no other text is an isolated node,
and a meaning of its own: every rule sets such texts aside, chooses ``K`` for
the others (the *core*, with ``k_max`` capped at one less than its size), and
adds one meaning per isolated text; ``KSelection.n_singletons`` counts them.
A core too small for a rule (fewer than three texts; four for NCV) has as many
meanings as connected components.  So a graph without any edge has ``n``
meanings, and :func:`semvar.pipeline.graph_entropy` puts each isolated text in a
cluster of its own.

Graphs in parts
---------------
Isolated texts are the smallest case of a general fact: between two connected
components of a fully judged graph every pair was judged FALSE, so no meaning
spans two components.  A core in several components is therefore
*decomposed*: each rule runs on each component (with ``k_max`` bounding each
component's ``K``; a component too small for the rule is one meaning) and
the ``K`` of the components are added (``details["parts"]``, each text's
component, and ``details["part_k"]``; the confidence is the product of the
components').  This is what makes every rule exact on an equivalence
relation: on disjoint cliques each clique is one component, and every rule
returns 1 on one clique.  Applied to the whole core instead, the ICL and BIC
merge the meanings of three pairs of texts (the price of describing the
labels outweighs six verdicts), the Bethe-Hessian merges cliques of two and
three texts, and the cross-validation rules split or merge small cliques at
random.  A connected core is read whole.

Partly judged graphs
--------------------
A sampled design judges some pairs only, and a real judge loses calls.  An
unjudged pair is no evidence either way, and every rule takes the mask of
judged pairs (``observed=``) and reads it so:

- *Unresolved texts.*  A text with no TRUE verdict and at least one pair
  never judged may share the meaning of any text it was not compared with:
  it is left out (``KSelection.n_unresolved``), not counted as a meaning of
  its own (which would inflate ``K`` and the entropy by one meaning per such
  text: 113 meanings for 300 texts of 3 meanings at a sampling share of 1 %).
  A text judged FALSE against every other text stays a meaning of its own.
- *Parts.*  Two texts may share a meaning unless a FALSE verdict says they do
  not, so the parts of the core are the components of the graph of pairs
  judged TRUE *or never judged*; in a fully judged graph these are the
  components above.
- *Likelihood rules* (:func:`icl`, :func:`bic`, :func:`auto`) count TRUE
  verdicts among the judged pairs inside and between clusters, and the
  judged pairs themselves, not all pairs; their clusters come from the
  *completed graph* ``Y = A + rho (J - I - O)``, the matrix-completion
  estimate of the probability of a TRUE verdict for every pair (the judged
  entries as they are, the others at the share ``rho`` of judged pairs found
  TRUE), whose spectrum is that of the centred matrix ``A - rho O`` of
  chapter 6 plus the constant direction.
- *Cross-validation rules* fit on the completed graph (:func:`ncv`) or on the
  judged pairs (:func:`ecv`) and score held-out *judged* pairs only.
- *Spectral rules* (:func:`eigengap`, :func:`bethe_hessian`) read the graph of
  TRUE verdicts as it is.  A design that judges every pair with the same
  probability ``s`` scales the expected graph by ``s``, and the normalised
  matrix does not see the scale (the observed graph rescaled by the observed
  share, as in matrix completion, has the same spectrum); the completed
  graph would instead add a constant to every pair, which the eigengap reads
  as one strong meaning.

Measured on a perfect judge (300 texts, three meanings): at a share of 3 %
of pairs :func:`auto` finds ``K = 3`` and the entropy ``log 3`` of the resolved
texts, with 2-7 % of the texts unresolved; at 1 % a third of the texts is
unresolved and :func:`semvar.pipeline.graph_entropy` refuses
(:class:`semvar.pipeline.UnresolvedError`).  The other rules take the mask,
but on designs this sparse they often miss ``K`` (the eigengap in 7 of 10
graphs at 3 %; cross-validation and the Bethe-Hessian, which read the
completed graph or the TRUE verdicts of a graph the mask joins into one part,
worse): with a mask, prefer :func:`auto` or :func:`icl`.  And reading
components apart assumes a judge that rarely says FALSE within a meaning: a
judge with a small ``p`` (LLaMA-like, 0.17) splits meanings into components,
and every rule then counts each of them.  The mask is held dense, so
``K`` is chosen on partly judged graphs of at most
:data:`semvar._masks.MASKED_N_MAX` texts.

Self-loops and weights
----------------------
The diagonal is ignored: ``A_ii`` ("a text means what it means") says
nothing about which texts share a meaning, and counting it would make every
text look connected.  The likelihood rules (:func:`icl`, :func:`bic`,
:func:`auto`, and :func:`consensus` when it asks one of them) read each
entry as a verdict, the share of TRUE answers for the pair: weights must lie
in ``[0, 1]`` (a mean of repeated verdicts is fine); a larger weight is
refused with a message, since it has no reading as a verdict.  Rescale such
a graph (``A / A.max()``) or threshold it first.  The spectral rules
(:func:`eigengap`, :func:`bethe_hessian`) and the cross-validation rules
accept any non-negative weights.
"""

from __future__ import annotations

from .._batched import AUTO_SMALL, GAP_TIE
from ._common import KSelection
from ._registry import METHODS, RULES, rule
from ._sparse import SPARSE, SparseRoute
from .choose import CoreSelection, choose_k, select_with_core

# the rules by name too, for static type checkers (the `x as x` form marks a re-export)
from .combine import auto as auto
from .combine import consensus as consensus
from .cv import ecv as ecv
from .cv import ncv as ncv
from .likelihood import bic as bic
from .likelihood import icl as icl
from .likelihood import icl_of
from .spectrum import bethe_hessian as bethe_hessian
from .spectrum import eigengap as eigengap

# Every registered rule's public function is a name of the package, and in its __all__ (so its API page
# documents it): a rule added with the decorator in a module imported above needs no edit here.
globals().update(METHODS)
__all__ = [
    "KSelection", "icl_of", "choose_k", "METHODS", "RULES", "AUTO_SMALL", "GAP_TIE", "select_with_core",
    "CoreSelection", "SPARSE", "SparseRoute", "rule", *METHODS,
]
