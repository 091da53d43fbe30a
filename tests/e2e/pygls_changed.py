"""`plansight` as if the installed pygls had changed under the server's fast paths: a
private method they call takes other parameters (pygls itself still works), so the server
must take pygls's public paths. Used by test_pygls_fallback.py as the server command."""

import sys
from typing import Any

from pygls.protocol import JsonRPCProtocol

serialize = JsonRPCProtocol._serialize_message


def changed(self: JsonRPCProtocol, data: Any, *more: Any) -> Any:
    return serialize(self, data)


JsonRPCProtocol._serialize_message = changed  # type: ignore[method-assign]

from plansight.lsp.pygls_private import fast_paths_usable  # noqa: E402
from plansight.warm.entry import main  # noqa: E402

if fast_paths_usable():
    sys.exit("the fast paths were not turned off")
sys.exit(main())
