"""A bare pygls 2 language server: no feature, no store, nothing but the LSP life cycle.

It shows what pygls itself costs at start-up (importing `lsprotocol.types` above all),
next to Plansight's cold start. Not part of the package.
"""

from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer

if __name__ == "__main__":
    LanguageServer("bare", "0", converter_factory=get_converter).start_io()
