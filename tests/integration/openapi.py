"""Validate JSON bodies against component schemas of the 3GPP OpenAPI files.

The files in spec/3gpp/ are OpenAPI 3.0 documents. Their schema dialect is
JSON Schema draft 4 (wright-00) plus a few OpenAPI keywords; the one that
changes validation is `nullable: true`, which is rewritten here to
`anyOf: [{type: null}, <schema>]`. Cross-file `$ref`s
('TS29571_CommonData.yaml#/components/schemas/Supi') are resolved through a
RefResolver whose store holds every YAML file of the folder.

Usage:
    openapi.validate(body, "PcfBinding")          # raises ValidationError
    openapi.errors(body, "ExtProblemDetails")     # -> list of messages
"""

import datetime
import json
import functools
import pathlib
import re

import jsonschema
import yaml

SPEC_DIR = pathlib.Path(__file__).resolve().parents[2] / "spec" / "3gpp"
MAIN_DOCUMENT = "TS29521_Nbsf_Management.yaml"
# Where a schema name is looked up when no document is given, in this order.
SEARCH_ORDER = (MAIN_DOCUMENT, "TS29571_CommonData.yaml", "TS29510_Nnrf_NFManagement.yaml")

FORMAT_CHECKER = jsonschema.FormatChecker()  # knows uuid; date-time is added below

_DATE_TIME = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))\Z")


@FORMAT_CHECKER.checks("date-time", raises=ValueError)
def is_date_time(value):
    """RFC 3339 date-time (jsonschema needs an extra package for this one)."""
    if not isinstance(value, str):
        return True
    match = _DATE_TIME.match(value)
    if not match:
        return False
    datetime.datetime.strptime(match.group(1) + " " + match.group(2), "%Y-%m-%d %H:%M:%S")
    if match.group(5) is not None:
        return int(match.group(5)) <= 23 and int(match.group(6)) <= 59
    return True


def to_json_schema(node):
    """Rewrite an OpenAPI 3.0 document (or any part of it) into plain JSON Schema."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: to_json_schema(value) for key, value in node.items()}
    pattern = out.get("pattern")
    if isinstance(pattern, str) and pattern.endswith("$") and not pattern.endswith("\\$"):
        # ECMA-262 '$' is the end of the input; Python's also matches before a final '\n'.
        out["pattern"] = pattern[:-1] + r"\Z"
    if isinstance(out.get("nullable"), bool):
        nullable = out.pop("nullable")
        if nullable:
            return {"anyOf": [{"type": "null"}, out]}
    return out


@functools.lru_cache(maxsize=None)
def _documents():
    """{file URI: converted document} for every YAML file of the spec folder."""
    documents = {}
    for path in sorted(SPEC_DIR.glob("*.yaml")):
        with open(path, encoding="utf-8") as f:
            documents[path.as_uri()] = to_json_schema(yaml.safe_load(f))
    if not documents:
        raise FileNotFoundError(f"no OpenAPI files in {SPEC_DIR}")
    return documents


def _find_document(schema_name):
    documents = _documents()
    for name in SEARCH_ORDER:
        schemas = documents[(SPEC_DIR / name).as_uri()]["components"]["schemas"]
        if schema_name in schemas:
            return name
    raise KeyError(f"no component schema {schema_name!r} in {', '.join(SEARCH_ORDER)}")


def component(schema_name, document=None):
    """The (converted) schema object components/schemas/<schema_name>."""
    document = document or _find_document(schema_name)
    return _documents()[(SPEC_DIR / document).as_uri()]["components"]["schemas"][schema_name]


@functools.lru_cache(maxsize=None)
def validator(schema_name, document=None):
    """A jsonschema validator for components/schemas/<schema_name> of `document`."""
    document = document or _find_document(schema_name)
    documents = _documents()
    base = (SPEC_DIR / document).as_uri()
    if schema_name not in documents[base]["components"]["schemas"]:
        raise KeyError(f"no component schema {schema_name!r} in {document}")
    resolver = jsonschema.RefResolver(base_uri=base, referrer=documents[base], store=documents)
    schema = {"$ref": f"{base}#/components/schemas/{schema_name}"}
    return jsonschema.Draft4Validator(schema, resolver=resolver, format_checker=FORMAT_CHECKER)


def errors(instance, schema_name, document=None):
    """Messages of every violation, each prefixed with the JSON path of the culprit."""
    found = validator(schema_name, document).iter_errors(instance)
    return [f"{error.json_path}: {error.message}" for error in found]


def validate(instance, schema_name, document=None):
    """Raise AssertionError listing every violation when instance does not match."""
    problems = errors(instance, schema_name, document)
    assert not problems, f"body does not match {schema_name}: {problems}; body={instance!r}"


def _parameter_schema(param, document):
    """(JSON schema of a parameter, how its text is read: 'json', 'csv' or 'plain')."""
    if "content" in param:
        return param["content"]["application/json"]["schema"], "json"
    schema = param["schema"]
    if "$ref" in schema:
        ref_doc, _, pointer = schema["$ref"].partition("#")
        target = _documents()[(SPEC_DIR / (ref_doc or document)).as_uri()]
        for part in pointer.strip("/").split("/"):
            target = target[part]
        schema_type = target.get("type")
    else:
        schema_type = schema.get("type")
    if schema_type == "array":
        return schema, "csv"  # style form, explode false: comma-separated
    return schema, "plain" if schema_type not in ("integer", "number", "boolean") else schema_type


def query_errors(pairs, path, method, document):
    """Messages of every violation of a query string (list of (name, value)) against the
    query parameters of `method path` in `document`: unknown or repeated names, missing
    required ones, values that do not match their schemas."""
    doc = _documents()[(SPEC_DIR / document).as_uri()]
    op = doc["paths"][path][method.lower()]
    params = {p["name"]: p for p in op.get("parameters", []) if p.get("in") == "query"}
    problems, seen = [], set()
    base = (SPEC_DIR / document).as_uri()
    resolver = jsonschema.RefResolver(base_uri=base, referrer=doc, store=_documents())
    for name, text in pairs:
        if name not in params:
            problems.append(f"unknown query parameter {name!r}")
            continue
        if name in seen:
            problems.append(f"query parameter {name!r} repeated")
        seen.add(name)
        schema, how = _parameter_schema(params[name], document)
        try:
            value = (json.loads(text) if how == "json" else text.split(",") if how == "csv"
                     else int(text) if how == "integer" else float(text) if how == "number"
                     else {"true": True, "false": False}[text] if how == "boolean" else text)
        except (ValueError, KeyError):
            problems.append(f"{name}: {text!r} is not {how}")
            continue
        checker = jsonschema.Draft4Validator(schema, resolver=resolver,
                                             format_checker=FORMAT_CHECKER)
        problems += [f"{name}: {e.message}" for e in checker.iter_errors(value)]
    for name, p in params.items():
        if p.get("required") and name not in seen:
            problems.append(f"required query parameter {name!r} missing")
    return problems
