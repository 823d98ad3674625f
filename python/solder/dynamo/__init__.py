"""The torch.compile backend "solder" (see backend.py; docs/python.md says what is lowered,
what falls back and what is not done yet).

Installed with pip, torch finds it through the `torch_dynamo_backends` entry point; importing
this module registers it too (a build tree on PYTHONPATH)."""
from . import report
from .backend import compile_graph, solder_backend


def _register():
    from torch._dynamo import list_backends, register_backend

    if "solder" not in list_backends(exclude_tags=()):
        register_backend(solder_backend, name="solder")


_register()

__all__ = ["solder_backend", "compile_graph", "report"]
