"""semvar: measuring how uncertain or variable language-model outputs are.

The support package of the *semvar* book.  One module per idea:

- :mod:`semvar.corpus` - the compound-proposition ("hobby") corpus
- :mod:`semvar.relation` - equivalence-relation checks on judged graphs
- :mod:`semvar.judges` - the judge protocol and simulated / embedding / LLM judges
- :mod:`semvar.graph` - pair designs and judged graphs
- :mod:`semvar.spectral` - spectral clustering and semantic spectral entropy
- :mod:`semvar.select_k` - choosing the number of meanings K
- :mod:`semvar.entropy` - entropy estimators
- :mod:`semvar.bounds` - the consistency bounds of Liu (2025)
- :mod:`semvar.similarity` - self-similarity of embeddings
- :mod:`semvar.exchangeable` - concentration for exchangeable sequences
- :mod:`semvar.conformal` - conformal prediction sets and set size
- :mod:`semvar.data` - data loaders (one data-directory rule)
- :mod:`semvar.claims` - the replication ledger
- :mod:`semvar.plotting` - the house style for figures
"""

from .entropy import empirical_entropy
from .spectral import spectral_clusters, spectral_entropy

__version__ = "0.1.0"
__all__ = ["empirical_entropy", "spectral_clusters", "spectral_entropy", "__version__"]
