"""Reference answers from real OmegaConf (Debian python3-omegaconf, run with /usr/bin/python3).

Reads a JSON list of cases on stdin, writes a JSON list of results on stdout, one process for the
whole batch. Floats are written as {"float": repr(x)} so 1 and 1.0 stay distinct.

Case kinds:
  yaml    {text}                      OmegaConf's YAML loader, then resolve every interpolation
  apply   {text, overrides:[{kind,key,value}]}
                                      Hydra's override application (ConfigLoaderImpl), struct mode
  coerce  {type, optional, value}     merge a value into a typed dataclass field
  repr    {values:[str]}              Python's repr() of floats
  structured {schema, text, overrides} overrides, then OmegaConf.merge(structured(schema), yaml),
                                      then resolve: the trainer's load_expr_config without Hydra
"""
import json
import math
import sys
from dataclasses import dataclass, field, make_dataclass
from typing import Any, Dict, List, Optional

import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict
from omegaconf._utils import get_yaml_loader


def typed(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, dict):
        return {str(k): typed(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [typed(x) for x in v]
    return repr(v)


def untyped(v):
    """JSON from the engine's parser back to Python values (floats tagged)."""
    if isinstance(v, dict):
        if set(v.keys()) == {"float"}:
            return float(v["float"])
        return {k: untyped(x) for k, x in v.items()}
    if isinstance(v, list):
        return [untyped(x) for x in v]
    return v


def err(e):
    return {"error": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}


def load(text):
    data = yaml.load(text, Loader=get_yaml_loader())
    return OmegaConf.create(data if data is not None else {})


def run_yaml(case):
    try:
        cfg = load(case["text"])
    except Exception as e:  # noqa: BLE001
        return {"stage": "load", **err(e)}
    try:
        return {"ok": typed(OmegaConf.to_container(cfg, resolve=True))}
    except Exception as e:  # noqa: BLE001
        return {"stage": "resolve", **err(e)}


def apply_one(cfg, o):
    kind, key = o["kind"], o["key"]
    value = untyped(o["value"]) if "value" in o else None
    if kind == "delete":
        config_val = OmegaConf.select(cfg, key, throw_on_missing=False)
        if config_val is None:
            raise RuntimeError(f"Could not delete from config. '{key}' does not exist.")
        if "value" in o and value != config_val:
            raise RuntimeError(f"Could not delete from config. The value of '{key}' is {config_val} and not {value}.")
        last = key.rfind(".")
        with open_dict(cfg):
            if last == -1:
                del cfg[key]
            else:
                node = OmegaConf.select(cfg, key[:last])
                del node[key[last + 1:]]
    elif kind == "add":
        if OmegaConf.select(cfg, key, throw_on_missing=False) is None or isinstance(value, (dict, list)):
            OmegaConf.update(cfg, key, value, merge=True, force_add=True)
        else:
            raise RuntimeError(f"Could not append to config. An item is already at '{key}'.")
    elif kind == "force":
        OmegaConf.update(cfg, key, value, merge=True, force_add=True)
    else:
        try:
            OmegaConf.update(cfg, key, value, merge=True)
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"Could not override '{key}'.") from e


def run_apply(case):
    try:
        cfg = load(case["text"])
    except Exception as e:  # noqa: BLE001
        return {"stage": "load", **err(e)}
    OmegaConf.set_struct(cfg, True)
    for i, o in enumerate(case["overrides"]):
        try:
            apply_one(cfg, o)
        except Exception as e:  # noqa: BLE001
            return {"stage": "override", "index": i + 1, **err(e)}
    OmegaConf.set_struct(cfg, False)
    try:
        return {"ok": typed(OmegaConf.to_container(cfg, resolve=True))}
    except Exception as e:  # noqa: BLE001
        return {"stage": "resolve", **err(e)}


TYPES = {"int": int, "float": float, "bool": bool, "str": str}


def run_coerce(case):
    t = TYPES[case["type"]]
    if case.get("optional"):
        t = Optional[t]
    dc = make_dataclass("C", [("x", t, field(default="???"))])
    try:
        cfg = OmegaConf.merge(OmegaConf.structured(dc), {"x": untyped(case["value"])})
        return {"ok": typed(cfg.x)}
    except Exception as e:  # noqa: BLE001
        return {"stage": "merge", **err(e)}


MISSING_MARK = "???"


def build_type(spec, classes):
    """A Python type (and field default) from the engine's schema description, as JSON."""
    k = spec["k"]
    if k == "obj":
        name = spec["name"]
        if name not in classes:
            fields = []
            for fname, sub in spec["fields"].items():
                t, dflt = build_type(sub, classes)
                fields.append((fname, t, dflt))
            classes[name] = make_dataclass(name, fields)
        cls = classes[name]
        t = Optional[cls] if spec["opt"] else cls
        return t, (field(default=None) if spec["d"] is None else field(default_factory=cls))
    if k == "list":
        inner, _ = build_type(spec["of"], classes)
        t = List[inner]
    elif k == "dict":
        inner, _ = build_type(spec["of"], classes)
        t = Dict[str, inner]
    else:
        t = {"int": int, "float": float, "bool": bool, "str": str, "any": Any}[k]
    if spec["opt"] and k != "any":
        t = Optional[t]
    d = spec["d"]
    if k == "list" and isinstance(d, list):
        of = spec["of"]
        if of["k"] == "obj":
            cls = classes[of["name"]]
            return t, field(default_factory=lambda d=d, cls=cls: [cls(**x) for x in d])
        return t, field(default_factory=lambda d=d: list(d))
    if k == "dict" and isinstance(d, dict):
        return t, field(default_factory=lambda d=d: dict(d))
    return t, field(default=d)


def run_structured(case):
    classes = {}
    root_t, _ = build_type(case["schema"], classes)
    try:
        cfg = load(case["text"])
    except Exception as e:  # noqa: BLE001
        return {"stage": "load", **err(e)}
    OmegaConf.set_struct(cfg, True)
    for i, o in enumerate(case.get("overrides", [])):
        try:
            apply_one(cfg, o)
        except Exception as e:  # noqa: BLE001
            return {"stage": "override", "index": i + 1, **err(e)}
    OmegaConf.set_struct(cfg, False)
    try:
        merged = OmegaConf.merge(OmegaConf.structured(root_t), cfg)
    except Exception as e:  # noqa: BLE001
        return {"stage": "merge", **err(e)}
    try:
        return {"ok": typed(OmegaConf.to_container(merged, resolve=True))}
    except Exception as e:  # noqa: BLE001
        return {"stage": "resolve", **err(e)}


def run_repr(case):
    # Python's repr/str of floats, for experiment names (lr5e-06) and embedded interpolations.
    return {"ok": [repr(float(x)) for x in case["values"]]}


def main():
    cases = json.load(sys.stdin)
    out = []
    for c in cases:
        fn = {"yaml": run_yaml, "apply": run_apply, "coerce": run_coerce, "repr": run_repr, "structured": run_structured}[c["kind"]]
        out.append(fn(c))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
