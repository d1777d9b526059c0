"""The former name of :mod:`graphmem.langchain.retrievers` (every LangChain adapter now lives in
:mod:`graphmem.langchain`): importing it still works, with a ``DeprecationWarning``."""

import warnings

from graphmem.langchain.retrievers import *  # noqa: F401,F403 (the same public names)
from graphmem.langchain.retrievers import __all__  # noqa: F401

warnings.warn("graphmem.retrievers is now graphmem.langchain.retrievers; import it from there",
              DeprecationWarning, stacklevel=2)
