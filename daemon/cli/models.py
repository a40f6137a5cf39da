"""`talkbox models …`: list, verify, fetch, quantize and locate the manifest's models."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from daemon.config import Config
from daemon.errors import EXIT_CONFIG, EXIT_OK, InputError, ModelError
from daemon.modelstore.manifest import MEANING, ROLES, Manifest, ModelEntry, base_dir, verify
from daemon.modelstore.select import manifest_for, select


def _size(entry: ModelEntry) -> int:
    return entry.archive.size if entry.archive else sum(f.size for f in entry.files)


def _present(entry: ModelEntry, models_dir: Path) -> bool:
    base = base_dir(entry, models_dir)
    return base is not None and all((base / f.path).exists() for f in entry.files)


def _profiles_using(manifest: Manifest, name: str) -> list[str]:
    return sorted(p for p, roles in manifest.profiles.items() if name in roles.values())


def models_list(cfg: Config, args: argparse.Namespace) -> int:
    """Every model in the manifest, with where it comes from and whether it is here."""
    manifest = manifest_for(cfg)
    models_dir = Path(cfg.models.dir).expanduser()
    rows: list[dict[str, Any]] = [
        {
            "name": e.name,
            "role": e.role,
            "engine": e.engine,
            "size": _size(e),
            "licence": e.licence,
            "source": e.source,
            "profiles": _profiles_using(manifest, e.name),
            "present": _present(e, models_dir),
        }
        for e in manifest.models.values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    print(f"{'NAME':35} {'ROLE':9} {'SIZE':>9}  {'HERE':4}  {'PROFILES':20} LICENCE")
    for r in rows:
        profiles = ",".join(r["profiles"]) or "-"
        print(
            f"{r['name']:35} {r['role']:9} {r['size'] / 1e6:7.1f}MB  {'yes' if r['present'] else 'no':4}  "
            f"{profiles:20} {r['licence']}"
        )
    print(f"\nprofile in use: {cfg.models.profile}; models directory: {models_dir}")
    return EXIT_OK


def _names(cfg: Config, manifest: Manifest, names: list[str]) -> list[str]:
    if names:
        return names
    # NOTE: every model the profile names, the fallback and second-pass recognisers too: the box may open each
    return list(dict.fromkeys(name for name in manifest.profile(cfg.models.profile).values() if name))


def models_verify(cfg: Config, args: argparse.Namespace) -> int:
    """Check models against their pins; exit 78 if any is missing or corrupt."""
    manifest = manifest_for(cfg)
    models_dir = Path(cfg.models.dir).expanduser()
    if args.all:
        names = [n for n, e in manifest.models.items() if _present(e, models_dir)]
    else:
        names = _names(cfg, manifest, args.names)
    failed = 0
    for name in names:
        started = time.monotonic()
        try:
            path = verify(manifest.get(name), models_dir)
            print(f"✔ {name}: {path} ({time.monotonic() - started:.1f} s)")
        except ModelError as err:
            failed += 1
            print(f"✘ {name}: {err.message} [{err.code}]")
    if not failed and not args.pins_only:
        _make_examples(cfg, manifest, names)
    return EXIT_CONFIG if failed else EXIT_OK


def _make_examples(cfg: Config, manifest: Manifest, names: list[str]) -> None:
    """Embed the skills' example sentences beside the sentence model, so that the box's first start need not
    (~30 s here, minutes on a Pi: sampling, labelling and embedding ~2000 sentences)."""
    from daemon.engines.load import load_meaning

    name = manifest.profile(cfg.models.profile).get(MEANING, "")
    if name not in names or not (cfg.skills.enabled and cfg.skills.by_meaning):
        return
    started = time.monotonic()
    router = load_meaning(cfg)
    if router is None:
        print(f"✘ {name}: its example sentences could not be made (see the warning above)")
        return
    print(f"✔ {name}: {router.size} example sentences embedded ({time.monotonic() - started:.1f} s)")
    router.close()


def models_fetch(cfg: Config, args: argparse.Namespace) -> int:
    """Download models (the only command that uses the network)."""
    from daemon.modelstore.fetch import fetch

    manifest = manifest_for(cfg)
    pins = {}
    for spec in args.pin:
        path, sep, digest = spec.partition("=")
        if not sep or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest.lower()):
            raise InputError("input-invalid", f"--pin {spec!r}: expected FILE=<64 hex digits of sha256>")
        pins[path] = digest.lower()
    for name in _names(cfg, manifest, args.names):
        entry = manifest.get(name)
        path = fetch(entry, Path(cfg.models.dir).expanduser(), pins)
        print(f"✔ {name}: {path}")
    _make_examples(cfg, manifest, _names(cfg, manifest, args.names))
    return EXIT_OK


def models_quantize(cfg: Config, args: argparse.Namespace) -> int:
    """Quantize a GGUF and print a manifest entry for it."""
    from daemon.modelstore.quantize import quantize

    result = quantize(args.src, args.dst, args.ftype, args.threads, args.force)
    print(f"✔ {result.path}: {result.source_type} -> {args.ftype}, {result.size} bytes", file=sys.stderr)
    print(f'files = [{{ path = "{result.path.name}", size = {result.size}, sha256 = "{result.sha256}" }}]')
    return EXIT_OK


def models_path(cfg: Config, args: argparse.Namespace) -> int:
    """Print the verified path of a model (by name) or of the model a role runs."""
    name = args.name or "llm"
    if name in ROLES:
        print(select(cfg, name).path)
        return EXIT_OK
    print(verify(manifest_for(cfg).get(name), Path(cfg.models.dir).expanduser()))
    return EXIT_OK


def models_digest(cfg: Config, args: argparse.Namespace) -> int:
    """Print the pin a model given by path needs, as the config line that pins it."""
    from daemon.modelstore.user_models import PIN_KEYS, user_digest

    digest = user_digest(args.role, args.path)
    section, key = PIN_KEYS[args.role].split(".")
    print(f'[{section}]\n{key} = "{digest}"')
    return EXIT_OK
