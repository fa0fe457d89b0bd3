"""Arithmetic for the ``calculate`` tool without ``eval``: a small AST walker.

τ²-bench evaluates the expression with ``eval`` after a character check; the same characters
are accepted here (digits, ``+ - * / ( ) .`` and spaces) and the result is rounded to cents the
same way, but only numeric literals and arithmetic operators are ever evaluated.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from adat.errors import ToolError

ALLOWED_CHARS = frozenset("0123456789+-*/(). ")
_MAX_EXPONENT = 100  # keeps '9**9**9' from running for minutes

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}


def _value(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        inner = _value(node.operand)
        return inner if isinstance(node.op, ast.UAdd) else -inner
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise ToolError(f"calculate: exponent {right:g} is too large")
        return _BINARY[type(node.op)](left, right)
    raise ToolError("calculate: only numbers, + - * / and parentheses are allowed")


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression, rounded to 2 decimals; bad input raises ToolError."""
    if not expression.strip():
        raise ToolError("calculate: the expression is empty")
    if not set(expression) <= ALLOWED_CHARS:
        bad = "".join(sorted(set(expression) - ALLOWED_CHARS))
        raise ToolError(f"calculate: invalid characters {bad!r} in expression; use digits, + - * / ( ) . only")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ToolError(f"calculate: {expression!r} is not a valid arithmetic expression") from None
    try:
        result = _value(tree.body)
    except ZeroDivisionError:
        raise ToolError("calculate: division by zero") from None
    except OverflowError:
        raise ToolError("calculate: the result is too large") from None
    return round(result, 2)
