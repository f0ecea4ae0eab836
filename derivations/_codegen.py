"""Print derived SymPy expressions into the package's generated modules.

Each concept module in :mod:`derivations` exposes ``FUNCTIONS``, a tuple of
:class:`GeneratedFunction` records.  :func:`render_module` turns one concept
module into Python source; :func:`write_all` writes every module atomically and
:func:`check_all` compares the committed files with a fresh rendering.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import sympy as sp
from sympy.printing.numpy import SciPyPrinter

from llm_power_verified.io.output import write_text

GENERATED_DIR = Path(__file__).resolve().parent.parent / "llm_power_verified" / "_generated"
COMMAND = "python -m derivations"


@dataclass(frozen=True)
class GeneratedFunction:
    """One derived closed form and the metadata the property tests need.

    Attributes
    ----------
    name
        Python name of the generated function.
    args
        SymPy symbols, in signature order; a parameter is named after its symbol.
    expr
        The derived expression.
    summary
        One line for the generated docstring.
    equations
        Where the formula stands in the paper (e.g. ``"Eq. 5"``).
    domain
        For each argument, the closed box ``(low, high)`` property tests draw from.
    conditions
        Expressions that must be strictly positive for a point to lie in the
        domain (e.g. ``rho_max - rho``).
    well_conditioned
        Expressions that must be strictly positive for the float64 evaluation
        to be held to the strict relative tolerance; ``conditioning_note`` says why.
    log_scale
        Arguments drawn log-uniformly (counts, sample sizes).
    integer_args
        Arguments drawn as integers.
    """

    name: str
    args: tuple[sp.Symbol, ...]
    expr: sp.Expr
    summary: str
    equations: str
    domain: Mapping[str, tuple[float, float]]
    conditions: tuple[sp.Expr, ...] = ()
    well_conditioned: tuple[sp.Expr, ...] = ()
    conditioning_note: str = ""
    log_scale: frozenset[str] = field(default_factory=frozenset)
    integer_args: frozenset[str] = field(default_factory=frozenset)

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(symbol.name for symbol in self.args)

    def __post_init__(self) -> None:
        missing = set(self.arg_names) - set(self.domain)
        if missing:
            raise ValueError(f"{self.name}: no domain for arguments {sorted(missing)}")
        unknown = self.expr.free_symbols - set(self.args)
        if unknown:
            raise ValueError(f"{self.name}: expression uses undeclared symbols {unknown}")


class GeneratedCodePrinter(SciPyPrinter):
    """SciPy printer that knows the project's special functions."""

    def _print_NormalCDF(self, expr):
        return f"{self._module_format('scipy.special.ndtr')}({self._print(expr.args[0])})"

    def _print_NormalUpperQuantile(self, expr):
        return f"(-{self._module_format('scipy.special.ndtri')}({self._print(expr.args[0])}))"


def _function_source(function: GeneratedFunction, printer: GeneratedCodePrinter) -> str:
    replacements, (reduced,) = sp.cse(
        [function.expr], symbols=sp.numbered_symbols("_t"), optimizations=None, order="canonical"
    )
    signature = ", ".join(function.arg_names)
    lines = [f"def {function.name}({signature}):"]
    expression_text = sp.sstr(function.expr)
    lines.append('    """' + function.summary)
    lines.append("")
    lines.append(f"    Source: {function.equations}.")
    lines.append(f"    SymPy: {expression_text}")
    lines.append('    """')
    for symbol, value in replacements:
        lines.append(f"    {symbol} = {printer.doprint(value)}")
    lines.append(f"    return {printer.doprint(reduced)}")
    return "\n".join(lines)


def render_module(concept: ModuleType) -> str:
    """Return the generated source for one concept module."""
    printer = GeneratedCodePrinter({"fully_qualified_modules": True, "strict": True})
    bodies = [_function_source(function, printer) for function in concept.FUNCTIONS]
    short_name = concept.__name__.rsplit(".", 1)[-1]
    imports = sorted(printer.module_imports)
    header = [
        f'"""Closed forms derived in derivations/{short_name}.py.',
        "",
        "GENERATED FILE: DO NOT EDIT.",
        f"Regenerate with `{COMMAND}`; `{COMMAND} --check` verifies it.",
        f"Source module: derivations/{short_name}.py",
        f"SymPy version: {sp.__version__}",
        '"""',
        "",
    ]
    header += [f"import {module}" for module in imports]
    names = ", ".join(f'"{function.name}"' for function in concept.FUNCTIONS)
    header += ["", f"__all__ = [{names}]", ""]
    return "\n".join(header) + "\n\n" + "\n\n\n".join(bodies) + "\n"


def render_package_init(concepts: list[ModuleType]) -> str:
    names = [concept.__name__.rsplit(".", 1)[-1] for concept in concepts]
    lines = [
        '"""Closed forms generated from the SymPy derivations in derivations/.',
        "",
        "GENERATED FILE: DO NOT EDIT.",
        f"Regenerate with `{COMMAND}`; `{COMMAND} --check` verifies it.",
        f"SymPy version: {sp.__version__}",
        '"""',
        "",
        "MODULES = (" + "".join(f'"{name}", ' for name in names).rstrip() + ")",
        "",
    ]
    return "\n".join(lines)


def render_all(concepts: list[ModuleType]) -> dict[str, str]:
    """File name -> source for every generated file."""
    files = {"__init__.py": render_package_init(concepts)}
    for concept in concepts:
        files[concept.__name__.rsplit(".", 1)[-1] + ".py"] = render_module(concept)
    return files


def write_all(concepts: list[ModuleType], directory: Path = GENERATED_DIR) -> list[Path]:
    """Write every generated file; remove generated files no longer produced."""
    directory.mkdir(parents=True, exist_ok=True)
    files = render_all(concepts)
    written = []
    for name, text in files.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_text(path, text)
            written.append(path)
    for stale in directory.glob("*.py"):
        if stale.name not in files:
            stale.unlink()
            written.append(stale)
    return written


def check_all(concepts: list[ModuleType], directory: Path = GENERATED_DIR) -> str:
    """Unified diff between committed generated files and a fresh rendering ('' if none)."""
    files = render_all(concepts)
    chunks = []
    present = {path.name for path in directory.glob("*.py")} if directory.exists() else set()
    for name in sorted(set(files) | present):
        path = directory / name
        committed = path.read_text(encoding="utf-8") if path.exists() else ""
        fresh = files.get(name, "")
        if committed != fresh:
            chunks.extend(
                difflib.unified_diff(
                    committed.splitlines(keepends=True),
                    fresh.splitlines(keepends=True),
                    fromfile=f"committed/{name}",
                    tofile=f"regenerated/{name}",
                )
            )
    return "".join(chunks)
