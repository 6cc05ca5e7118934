"""What candidate code may use, as data: every entry is allowed for a stated reason; everything else is not.

Kernel code needs little: the Triton language inside ``@triton.jit`` functions, and on the host allocation,
views, metadata, dtypes and launch arithmetic. The static check (parent/static.py) admits exactly that:
- ``IMPORTS``: the modules (and, for some, the names) a submission may import;
- ``MODULE_SURFACE``: the dotted names it may use on an imported module (torch, triton, math, typing...);
  anything else on a module is refused, and so is a module object used as a value;
- ``HOST_ATTRIBUTES``: attribute names it may use on values in host code (tensor metadata, views, copies,
  allocation, and the methods of Python's own containers and strings);
- ``KERNEL_ATTRIBUTES``: inside kernels, the Triton language's tensor and dtype members;
- ``BUILTINS``: the builtins it may name.
Private (``_x``) and dunder (``__x__``) attributes are never allowed (``__name__`` is: it is a string).
Denials that deserve a specific reason (threads, torch.compile, streams, ...) are named in ``NAMED_DENIALS``
so a reviewer sees the intent, not only "not allowed".
"""

from __future__ import annotations

import importlib
import types
from functools import lru_cache

# ---------------------------------------------------------------------------------------------------------
# Imports: module → None (any public name may be imported from it) or the names that may be imported.

IMPORTS: dict[str, tuple[frozenset[str] | None, str]] = {
    "torch": (None, "tensors, dtypes and allocation for the host glue (its surface is limited below)"),
    "triton": (None, "@triton.jit, autotune/heuristics configs and launch helpers (limited below)"),
    "triton.language": (None, "the kernel language"),
    "triton.language.extra": (frozenset({"libdevice", "cuda"}), "libdevice math functions for kernels"),
    "triton.language.extra.cuda": (frozenset({"libdevice"}), "libdevice math functions for kernels"),
    "triton.language.extra.libdevice": (None, "libdevice math functions for kernels"),
    "triton.language.extra.cuda.libdevice": (None, "libdevice math functions for kernels"),
    "math": (None, "shape arithmetic and constants on Python numbers"),
    "typing": (None, "annotations"),
    "__future__": (frozenset({"annotations"}), "postponed annotations"),
    "functools": (frozenset({"partial", "reduce"}), "building launch helpers (caching decorators are not here: "
                                                     "no state may survive a call)"),
    "itertools": (frozenset({"product", "chain", "accumulate", "repeat"}), "autotune config lists"),
    "operator": (frozenset({"mul", "add", "floordiv", "sub", "truediv", "mod"}),
                 "shape products with functools.reduce (attrgetter/methodcaller are string-to-attribute routes)"),
    "collections": (frozenset({"namedtuple"}), "small result records"),
}

# ---------------------------------------------------------------------------------------------------------
# Dotted names allowed on imported modules (after resolving aliases such as `tl` → triton.language).

DTYPES = ("float16", "float32", "float64", "bfloat16", "half", "float", "double", "int8", "int16", "int32",
          "int64", "uint8", "uint16", "uint32", "uint64", "bool", "long", "int", "short", "complex32",
          "complex64", "complex128", "cfloat", "cdouble", "chalf", "float8_e4m3fn", "float8_e5m2")
TORCH_SURFACE: dict[str, str] = {
    **{f"torch.{d}": "a dtype" for d in DTYPES},
    **{f"torch.{n}": "allocation of outputs and scratch space" for n in (
        "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
        "tensor", "as_tensor", "arange")},
    **{f"torch.{n}": "views, copies and concatenation (no arithmetic)" for n in (
        "cat", "concat", "concatenate", "stack", "hstack", "vstack", "as_strided", "broadcast_to",
        "broadcast_tensors", "view_as_real", "view_as_complex", "reshape", "flatten", "unflatten", "squeeze",
        "unsqueeze", "transpose", "permute", "narrow", "chunk", "split", "unbind", "movedim", "t", "select",
        "diagonal", "swapaxes", "conj", "resolve_conj", "resolve_neg")},
    **{f"torch.{n}": "metadata and type queries" for n in (
        "Tensor", "Size", "dtype", "device", "is_tensor", "is_floating_point", "is_complex", "numel", "finfo",
        "iinfo", "promote_types", "result_type", "can_cast", "broadcast_shapes", "get_default_dtype", "strided",
        "preserve_format", "contiguous_format", "channels_last", "layout", "memory_format")},
    **{f"torch.{n}": "autograd is never needed; turning it off is harmless" for n in (
        "no_grad", "inference_mode", "enable_grad")},
    **{f"torch.cuda.{n}": "device selection and properties for launch configuration" for n in (
        "is_available", "current_device", "device", "device_count", "get_device_properties",
        "get_device_capability", "get_device_name", "synchronize")},
}
TRITON_SURFACE: dict[str, str] = {
    "triton.jit": "defines kernels", "triton.autotune": "kernel configurations (GPU only; the CPU interpreter has "
    "no autotune)", "triton.Config": "kernel configurations", "triton.heuristics": "derived meta-parameters",
    "triton.cdiv": "grid arithmetic", "triton.next_power_of_2": "block sizes",
}
# Modules whose every public, non-module attribute is allowed (kernel language and host number crunching).
OPEN_MODULES: dict[str, str] = {
    "triton.language": "the kernel language",
    "triton.language.math": "kernel math functions",
    "triton.language.extra.libdevice": "libdevice math functions",
    "triton.language.extra.cuda.libdevice": "libdevice math functions",
    "math": "math on Python numbers (shape arithmetic, constants)",
    "typing": "annotations",
}
# Module paths that lead to an open module (allowed only as part of a longer chain, never as values).
MODULE_PATHS = ("torch", "torch.cuda", "triton", "triton.language", "triton.language.math",
                "triton.language.extra", "triton.language.extra.cuda", "triton.language.extra.libdevice",
                "triton.language.extra.cuda.libdevice", "math", "typing", "functools", "itertools", "operator",
                "collections")

# ---------------------------------------------------------------------------------------------------------
# Attribute names allowed on values in host code. The evaluator observes every PyTorch operator a call runs,
# so these are about reachability (nothing here leads to a module, a frame or the harness), not trust.

HOST_ATTRIBUTES: dict[str, str] = {
    **{n: "tensor metadata" for n in (
        "shape", "size", "stride", "dim", "ndim", "ndimension", "numel", "nelement", "dtype", "device",
        "is_contiguous", "is_cuda", "is_complex", "is_floating_point", "is_signed", "element_size", "itemsize",
        "nbytes", "storage_offset", "data_ptr", "layout", "requires_grad", "is_conj", "is_neg", "index",
        "type", "names", "is_leaf", "bits", "max", "min", "eps", "tiny", "resolution",
        "multi_processor_count", "total_memory", "major", "minor", "name", "L2_cache_size",
        "max_shared_memory_per_block_optin", "regs_per_multiprocessor", "warp_size")},
    **{n: "views (no data is computed)" for n in (
        "view", "view_as", "reshape", "reshape_as", "transpose", "t", "T", "mT", "permute", "unsqueeze",
        "squeeze", "expand", "expand_as", "flatten", "unflatten", "narrow", "select", "split", "chunk", "unbind",
        "movedim", "diagonal", "as_strided", "real", "imag", "conj", "resolve_conj", "unfold", "swapaxes",
        "detach", "data", "broadcast_to")},
    **{n: "copies and dtype/device conversion" for n in (
        "contiguous", "clone", "copy_", "to", "float", "half", "double", "bfloat16", "int", "long", "bool",
        "short", "char", "byte", "cuda", "cpu")},
    **{n: "allocation" for n in (
        "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "new_empty_strided", "zero_", "fill_")},
    "item": "reading a scalar parameter passed as a 0-d tensor (the evaluator counts such reads)",
    **{n: "Python containers and strings" for n in (
        "append", "extend", "insert", "pop", "get", "keys", "values", "items", "count", "copy", "update",
        "setdefault", "join", "format", "split", "strip", "lower", "upper", "startswith", "endswith",
        "replace", "add", "kwargs", "num_warps", "num_stages", "num_ctas", "is_integer", "bit_length")},
    "__name__": "the name of a function or type, for messages (the only dunder allowed: it is a string)",
    "run": "launching a kernel without the subscript syntax",
}

# Inside @triton.jit functions: the Triton language's tensor and dtype members (derived from the installed
# triton by kernel_attributes()).
KERNEL_EXTRA: dict[str, str] = {
    "dtype": "element type of a block", "shape": "block shape", "element_ty": "pointee type of a pointer",
    "primitive_bitwidth": "bit width of a dtype", "value": "value of a constexpr", "type": "block type",
    "numel": "block size", "T": "transpose",
}

BUILTINS: dict[str, str] = {
    **{n: "plain Python on numbers and shapes" for n in (
        "abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "filter", "float", "frozenset",
        "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "pow", "print",
        "range", "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip", "callable",
        "repr", "format", "ord", "chr", "hasattr", "getattr", "type", "True", "False", "None", "Ellipsis",
        "NotImplemented")},
    **{n: "raising a clear error" for n in (
        "Exception", "ValueError", "TypeError", "RuntimeError", "NotImplementedError", "AssertionError",
        "IndexError", "KeyError", "ZeroDivisionError", "ArithmeticError", "AttributeError", "OverflowError")},
}

# ---------------------------------------------------------------------------------------------------------
# Denials with a specific reason code (everything not allowed above is denied anyway).

NAMED_DENIALS: dict[str, str] = {
    # imports
    "kernelbenchx": "imports_reference", "threading": "threads", "_thread": "threads", "concurrent": "threads",
    "asyncio": "threads", "multiprocessing": "subprocesses", "subprocess": "subprocesses", "ctypes": "ctypes",
    "cffi": "ctypes", "gc": "introspection", "inspect": "introspection", "os": "os_access", "sys": "os_access",
    "socket": "network", "importlib": "dynamic_import", "builtins": "monkeypatch", "pickle": "dynamic_code",
    "numpy": "host_compute", "functools.lru_cache": "cross_call_state", "functools.cache": "cross_call_state",
    # torch and triton surfaces
    "torch.compile": "torch_compile", "torch._dynamo": "torch_compile", "torch._inductor": "torch_compile",
    "torch.jit": "torch_compile", "torch.cuda.Stream": "streams", "torch.cuda.stream": "streams",
    "torch.cuda.ExternalStream": "streams", "torch.cuda.current_stream": "streams",
    "torch.cuda.set_stream": "streams", "torch.cuda.CUDAGraph": "cuda_graphs", "torch.cuda.graph": "cuda_graphs",
    "torch.utils": "native_extension", "torch._C": "native_extension", "torch.library": "native_extension",
    "torch.ops": "native_extension", "torch.multiprocessing": "subprocesses", "torch.backends": "monkeypatch",
    "triton.runtime": "introspection", "triton.compiler": "native_extension", "triton.testing": "timing",
    "triton.knobs": "monkeypatch", "triton.language.inline_asm_elementwise": "inline_asm",
    # builtins
    "exec": "dynamic_code", "eval": "dynamic_code", "compile": "dynamic_code", "__import__": "dynamic_import",
    "open": "file_access", "globals": "introspection", "locals": "introspection", "vars": "introspection",
    "dir": "introspection", "setattr": "monkeypatch", "delattr": "monkeypatch", "breakpoint": "introspection",
    "id": "cross_call_state", "hash": "cross_call_state", "memoryview": "host_compute", "bytearray": "host_compute",
    "object": "introspection", "super": "introspection", "staticmethod": "class_definition",
    "classmethod": "class_definition", "property": "class_definition",
    # host attributes
    "tolist": "host_compute", "wait_stream": "streams", "record_stream": "streams",
    "untyped_storage": "introspection", "storage": "introspection", "register_hook": "introspection",
    "grad_fn": "introspection", "apply_": "host_compute", "map_": "host_compute", "set_": "tensor_subclass",
}


@lru_cache(maxsize=None)
def open_module_names(module: str) -> frozenset[str]:
    """Public, non-module attributes of an open module in the installed version (empty if it is missing)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return frozenset()
    return frozenset(n for n in dir(mod) if not n.startswith("_")
                     and not isinstance(getattr(mod, n, None), types.ModuleType))


@lru_cache(maxsize=None)
def kernel_attributes() -> frozenset[str]:
    """Attribute names allowed on values inside @triton.jit functions."""
    import triton.language as tl

    members = {n for cls in (tl.tensor, tl.dtype, tl.constexpr) for n in dir(cls) if not n.startswith("_")}
    members -= set(NAMED_DENIALS)
    return frozenset(members | set(KERNEL_EXTRA))


def allowed_chain(chain: str) -> bool:
    """Whether a dotted name on an imported module is in the surface."""
    if chain in TORCH_SURFACE or chain in TRITON_SURFACE:
        return True
    module, _, attr = chain.rpartition(".")
    if module in OPEN_MODULES:
        return attr in open_module_names(module)
    names = IMPORTS.get(module, (frozenset(), ""))[0]
    return names is not None and module not in ("torch", "triton") and attr in names


def denial(name: str) -> str | None:
    """The named reason for a denied module, chain, builtin or attribute (longest matching prefix)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        code = NAMED_DENIALS.get(".".join(parts[:i]))
        if code:
            return code
    return None
