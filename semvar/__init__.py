"""semvar: measuring how uncertain or variable language-model outputs are.

The support package of the *semvar* book.  One module per idea:

- :mod:`semvar.corpus` - the compound-proposition ("hobby") corpus
- :mod:`semvar.relation` - equivalence-relation checks on judged graphs
- :mod:`semvar.judges` - the judge protocol and simulated / embedding judges
- :mod:`semvar.llm` - an LLM as the judge (any OpenAI-compatible endpoint)
- :mod:`semvar.graph` - pair designs and judged graphs
- :mod:`semvar.spectral` - spectral matrices, embedding and clustering
- :mod:`semvar.select_k` - choosing the number of meanings K
- :mod:`semvar.entropy` - entropy estimators
- :mod:`semvar.pipeline` - semantic spectral entropy end to end (texts or graph to entropy)
- :mod:`semvar.bounds` - the consistency bounds of Liu (2025)
- :mod:`semvar.similarity` - self-similarity of embeddings
- :mod:`semvar.exchangeable` - concentration for exchangeable sequences
- :mod:`semvar.conformal` - conformal prediction sets and set size
- :mod:`semvar.data` - data loaders (one data-directory rule)
- :mod:`semvar.papers` - published values, each with its citation
- :mod:`semvar.claims` - the replication ledger
- :mod:`semvar.experiments` - the sweeps that regenerate the files under ``data/``
- :mod:`semvar.plotting` - the house style for figures
- :mod:`semvar.testing` - a simulated OpenAI-compatible endpoint for tests
"""

from .entropy import empirical_entropy
from .pipeline import graph_entropy, semantic_spectral_entropies, semantic_spectral_entropy
from .spectral import spectral_clusters

__version__ = "0.1.0"
__all__ = [
    "empirical_entropy", "graph_entropy", "semantic_spectral_entropy", "semantic_spectral_entropies",
    "spectral_clusters", "__version__",
]
