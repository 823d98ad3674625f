"""The torch.compile backend "solder" (see backend.py; docs/python.md says what is lowered,
what falls back and what is not done yet).

Installed with pip, torch finds it through the `torch_dynamo_backends` entry point; importing
this module registers it too (a build tree on PYTHONPATH)."""
from . import report
from .backend import compile_graph, solder_backend


def _register():
    from torch._dynamo import register_backend

    try:  # torch found the entry point and is loading this module: it registers the backend
        from torch._dynamo.backends.registry import _BACKENDS

        if _BACKENDS.get("solder") is not None:
            return
    except ImportError:
        pass
    # Not checked with list_backends(): it imports every backend (Inductor among them), seconds.
    try:
        register_backend(solder_backend, name="solder")
    except AssertionError:  # already registered (the entry point loaded this module)
        pass


_register()

__all__ = ["solder_backend", "compile_graph", "report"]
