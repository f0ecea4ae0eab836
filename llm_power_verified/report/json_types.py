"""The JSON Schema of each kind of value the contract declares: a column's, a ``Field``'s, an object of fields.

Shared by the generated schemas (:mod:`.schemas`): the audits' reports and the ``compare`` record.
"""

from __future__ import annotations

from llm_power_verified.contract import VERDICT_KINDS, Field

__all__ = ["FLOAT", "KIND_SCHEMAS", "STRINGS", "field_schema", "object_schema"]

#: A float as the JSON writer writes it: a number, "inf"/"-inf", or null (undefined).
FLOAT = {"oneOf": [{"type": "number"}, {"enum": ["inf", "-inf"]}, {"type": "null"}]}
#: A list of strings.
STRINGS = {"type": "array", "items": {"type": "string"}}
#: The schema of each declared kind of value.
KIND_SCHEMAS = {
    "text": {"type": "string"},
    "texts": STRINGS,
    "int": {"type": "integer"},
    "float": FLOAT,
    "bool": {"type": "boolean"},
    "decision": {"type": ["boolean", "null"]},
    "rank-bound": {"type": ["integer", "null"]},
    "verdict": {"enum": list(VERDICT_KINDS)},
}


def field_schema(item: Field) -> dict:
    """The schema of one declared ``Field`` (a "float" field is a finite number; nullable adds null).

    Parameters
    ----------
    item : Field
        The declaration.

    Returns
    -------
    dict
        Its schema, with its meaning as the description.

    Examples
    --------
    >>> field_schema(Field("n_items", "int", "N", minimum=1))
    {'type': 'integer', 'minimum': 1, 'description': 'N'}
    """
    if item.kind == "choice":
        schema: dict = {"enum": list(item.choices)}
    elif item.kind == "probability":
        schema = {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}
    else:
        schema = dict(KIND_SCHEMAS[item.kind]) if item.kind != "float" else {"type": "number"}
        if item.minimum is not None:
            schema["minimum"] = item.minimum
    if item.nullable:
        schema = {"anyOf": [schema, {"type": "null"}]}
    return {**schema, "description": item.meaning}


def object_schema(fields: tuple[Field, ...]) -> dict:
    """An object holding exactly these fields, each required.

    Parameters
    ----------
    fields : tuple of Field
        The declarations, in order.

    Returns
    -------
    dict
        The schema.
    """
    return {
        "type": "object",
        "required": [item.name for item in fields],
        "properties": {item.name: field_schema(item) for item in fields},
        "additionalProperties": False,
    }
