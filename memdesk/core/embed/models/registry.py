"""The embedding models memdesk can build, where their GGUF files live, and building them.

Each model has a converter module exposing
``build(out_path: Path, progress: Callable[[str], None]) -> None`` and, optionally,
``SOURCE`` (a ``wheels.SourcePackage``) or ``SOURCE_SHA256`` plus
``CONVERTER_VERSION``. Converters are imported lazily: they pull in numpy,
safetensors or sentencepiece, which listing models must not need.

A sidecar ``<file>.build.json`` records what a file was built from, so
``build_model`` can skip work when the file is already up to date.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from memdesk.core import diskio
from memdesk.core.embed.models import weight_formats
from memdesk.core.errors import ModelBuildError

logger = logging.getLogger(__name__)

MODEL_NAMES: tuple[str, ...] = ("minilm", "e5-small")
# Until measured on the eval set: the multilingual model handles Chinese notes.
DEFAULT_MODEL = "e5-small"

Progress = Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """Static facts about one buildable model."""

    name: str
    display_name: str
    file_name: str
    module: str
    description: str


SPECS: dict[str, ModelSpec] = {
    "minilm": ModelSpec(
        name="minilm",
        display_name="all-MiniLM-L6-v2",
        file_name="all-MiniLM-L6-v2.gguf",
        module="memdesk.core.embed.models.minilm",
        description="English, 384 dims, 22M parameters; fastest.",
    ),
    "e5-small": ModelSpec(
        name="e5-small",
        display_name="multilingual-e5-small",
        file_name="multilingual-e5-small.gguf",
        module="memdesk.core.embed.models.e5",
        description="Multilingual (incl. Chinese), 384 dims, 118M parameters.",
    ),
}


@dataclasses.dataclass(frozen=True)
class ModelInfo:
    """One row of ``memdesk model list``."""

    name: str
    display_name: str
    path: Path
    built: bool
    size: int | None  # bytes of the GGUF file when built
    source_sha256: str | None  # digest of the pinned source package, None if unknown
    up_to_date: bool  # built from the current source and converter
    description: str
    # Every built file of the model, by weight format (``path`` is the F16 one); the
    # default model loads this CPU's format when built (``find_default_model``).
    formats: dict[str, Path] = dataclasses.field(default_factory=dict)


def _spec(name: str) -> ModelSpec:
    try:
        return SPECS[name]
    except KeyError:
        raise ModelBuildError(f"Unknown model {name!r}; choose one of: {', '.join(MODEL_NAMES)}") from None


def model_file(name: str, models_dir: Path, weights: str = weight_formats.DEFAULT_FORMAT) -> Path:
    """Where model ``name``'s GGUF file with its matrices in ``weights`` lives (whether
    built or not): ``<name>.gguf`` for the default format, ``<name>.<format>.gguf`` else."""
    file_name = _spec(name).file_name
    if weight_formats.check(weights) != weight_formats.DEFAULT_FORMAT:
        file_name = file_name.removesuffix(".gguf") + f".{weights}.gguf"
    return Path(models_dir) / file_name


def _stamp_file(path: Path) -> Path:
    return path.with_name(path.name + ".build.json")


def _load_module(spec: ModelSpec) -> ModuleType | None:
    try:
        return importlib.import_module(spec.module)
    except ModuleNotFoundError as exc:
        # Only "this converter does not exist (yet)"; a converter's own missing
        # dependency is a real error and must surface.
        if exc.name == spec.module:
            return None
        raise


def _source_sha256(module: ModuleType | None) -> str | None:
    if module is None:
        return None
    source = getattr(module, "SOURCE", None)
    digest = getattr(source, "digest", None)
    if isinstance(digest, str):
        return digest
    value = getattr(module, "SOURCE_SHA256", None)
    return value if isinstance(value, str) else None


def _expected_stamp(
    spec: ModelSpec, module: ModuleType | None, weights: str = weight_formats.DEFAULT_FORMAT
) -> dict[str, object]:
    stamp: dict[str, object] = {
        "model": spec.name,
        "source_sha256": _source_sha256(module),
        "converter_version": getattr(module, "CONVERTER_VERSION", 0) if module else None,
    }
    if weights != weight_formats.DEFAULT_FORMAT:  # the default's stamps predate formats: keep them valid
        stamp["weights"] = weights
    return stamp


def _is_up_to_date(path: Path, expected: dict[str, object]) -> bool:
    try:
        stamp = json.loads(_stamp_file(path).read_text(encoding="utf-8"))
        size = path.stat().st_size
    except (OSError, ValueError):
        return False
    if not isinstance(stamp, dict) or stamp.get("size") != size:
        return False
    return all(stamp.get(key) == value for key, value in expected.items())


def build_model(
    name: str,
    models_dir: Path,
    progress: Progress | None = None,
    *,
    force: bool = False,
    weights: str = weight_formats.DEFAULT_FORMAT,
) -> Path:
    """Build model ``name`` (its matrices in ``weights``) into ``models_dir`` and return
    the file's path.

    Skips the work when the file exists and its build stamp matches the current
    source package and converter version (unless ``force``). Raises
    ``ModelBuildError`` for an unknown model, a converter not shipped in this
    version, or a missing source package (the message has the pip command).
    """
    spec = _spec(name)
    say = progress or (lambda _msg: None)
    path = model_file(name, models_dir, weights)
    module = _load_module(spec)
    if module is None or not callable(getattr(module, "build", None)):
        raise ModelBuildError(f"Model {name!r} cannot be built by this version of memdesk")
    if not buildable(name):  # said before any progress line: nothing will be built
        from memdesk.core.embed.models import wheels

        source = model_source(name)
        if isinstance(source, wheels.SourcePackage):
            raise ModelBuildError(wheels.not_shipped(source, name))
    expected = _expected_stamp(spec, module, weights)
    if not force and _is_up_to_date(path, expected):
        logger.info("%s is up to date", path)
        say(f"{path} is up to date")
        _write_encoder(path)
        return path
    Path(models_dir).mkdir(parents=True, exist_ok=True, mode=0o700)
    logger.info("building %s (%s) into %s", name, weights, path)
    module.build(path, say, weights=weights)
    if not path.is_file():
        raise ModelBuildError(f"The {name} converter finished without writing {path}")
    stamp = dict(expected, size=path.stat().st_size)
    # Owner-only, as everything memdesk creates (the umask and an older stamp aside).
    stamp_bytes = json.dumps(stamp, indent=2, sort_keys=True).encode("utf-8")
    diskio.write_atomic(_stamp_file(path), stamp_bytes, mode=0o600, keep_mode=False)
    _write_encoder(path)
    return path


def _write_encoder(path: Path) -> None:
    """The model's vocabulary-free encoder file beside it (see embed.encoder_file), so
    the first load does not derive it; a folder that cannot take it is no error."""
    from memdesk.core.embed import encoder_file, gguf_header, model_digest
    from memdesk.core.errors import MemdeskError

    try:
        info = gguf_header.inspect_gguf(path)
        if encoder_file.unsupported(info) is None:
            encoder_file.ensure_encoder(info, model_digest.file_sha256(path))
    except (MemdeskError, OSError, ValueError) as exc:  # the first load tries again
        logger.warning("no encoder file for %s: %s", path, exc)


def list_models(models_dir: Path) -> list[ModelInfo]:
    """Every known model with its file's state, in ``MODEL_NAMES`` order."""
    rows: list[ModelInfo] = []
    for name in MODEL_NAMES:
        spec = SPECS[name]
        path = model_file(name, models_dir)
        try:
            module = _load_module(spec)
        except ImportError:
            module = None
        try:
            size: int | None = path.stat().st_size if path.is_file() else None
        except OSError:
            size = None
        formats = {
            fmt: model_file(name, models_dir, fmt)
            for fmt in weight_formats.FORMATS
            if model_file(name, models_dir, fmt).is_file()
        }
        rows.append(
            ModelInfo(
                name=name,
                display_name=spec.display_name,
                path=path,
                built=size is not None,
                size=size,
                source_sha256=_source_sha256(module),
                up_to_date=size is not None and _is_up_to_date(path, _expected_stamp(spec, module)),
                description=spec.description,
                formats=formats,
            )
        )
    return rows


def portable_file(path: Path) -> Path | None:
    """The default-format (F16) file of the same model when ``path`` is a model file in
    another format (``<name>.<format>.gguf``) and that file is built, else None."""
    for spec in SPECS.values():
        stem = spec.file_name.removesuffix(".gguf")
        for fmt in weight_formats.FORMATS:
            if fmt != weight_formats.DEFAULT_FORMAT and path.name == f"{stem}.{fmt}.gguf":
                sibling = path.with_name(spec.file_name)
                return sibling if sibling.is_file() else None
    return None


def cpu_weights(features: frozenset[str] | None = None) -> str:
    """The weight format this CPU's llama.cpp backend runs fastest (``features``: what it
    uses, as ggml names them; default: ``cpu_backend.likely_features()``, known without
    loading llama.cpp)."""
    if features is None:
        from memdesk.core.embed import cpu_backend

        features = cpu_backend.likely_features()
    return weight_formats.preferred(features)


def find_default_model(models_dir: Path, weights: str | None = None) -> Path | None:
    """The default model's file if built, else the first built model, else ``None``.

    Each model's file in ``weights`` (default: this CPU's, ``cpu_weights``) is taken
    when built, else its default-format file: choosing per CPU at load time, one file
    per format built offline (``memdesk model build`` builds the CPU's format too).
    """
    wanted = cpu_weights() if weights is None else weight_formats.check(weights)
    for name in (DEFAULT_MODEL, *MODEL_NAMES):
        for fmt in dict.fromkeys((wanted, weight_formats.DEFAULT_FORMAT)):
            path = model_file(name, models_dir, fmt)
            if path.is_file():
                return path
    return None


def model_info_json(info: ModelInfo) -> dict[str, object]:
    """``ModelInfo`` as JSON-ready data (for ``memdesk model list --json``)."""
    data = dataclasses.asdict(info)
    data["path"] = str(info.path)
    data["formats"] = {fmt: str(path) for fmt, path in info.formats.items()}
    data["default"] = info.name == DEFAULT_MODEL
    return data


def model_source(name: str) -> object | None:
    """The pinned source (``wheels.SourcePackage``) model ``name`` is built from, if known."""
    try:
        module = _load_module(_spec(name))
    except ImportError:
        return None
    return getattr(module, "SOURCE", None) if module is not None else None


def packaged_source(name: str) -> bool:
    """True when this desktop bundle ships model ``name``'s pinned source (its own
    quantised blocks, ``packaging/build.sh``), from which the model's files are built."""
    from memdesk.core import paths
    from memdesk.core.embed.models import wheels

    if paths.bundled_sources_dir() is None:  # not a bundle: no converter import (numpy) needed
        return False
    source = model_source(name)
    return isinstance(source, wheels.SourcePackage) and wheels.shipped_folder(source) is not None


def buildable(name: str) -> bool:
    """Whether ``memdesk model build name`` can work here: anywhere but in a desktop
    bundle, which can only build what it ships the source of."""
    from memdesk.core import paths

    return not paths.is_bundle() or packaged_source(name)


def remove_partial_files(models_dir: Path) -> list[Path]:
    """Delete the partial files a build killed mid-write left in ``models_dir``, for every
    model and format: the model file's (``gguf_file``'s temp names, ~100 MB each) and its
    encoder file's (``encoder_file``'s); one a running build still writes is kept.
    Returns what was removed."""
    from memdesk.core.embed import encoder_file
    from memdesk.core.embed.models import gguf_file

    removed: list[Path] = []
    for name in MODEL_NAMES:
        for fmt in weight_formats.FORMATS:
            path = model_file(name, models_dir, fmt)
            removed += gguf_file.remove_partial_files(path)
            removed += encoder_file.remove_partial_files(encoder_file.sidecar_path(path))
    return removed


def default_formats() -> tuple[str, ...]:
    """The default model's files ``build_default_model`` builds: the F16 one, which the
    OpenClaw profiles compute on, and this CPU's format where that is another."""
    return tuple(dict.fromkeys((weight_formats.DEFAULT_FORMAT, cpu_weights())))


def missing_packaged_formats(models_dir: Path) -> list[str]:
    """On a desktop bundle that ships the default model's source, the formats of
    ``default_formats`` not built in ``models_dir`` (the user's data dir): all of them at
    the first start, this CPU's after a start killed while writing it (its F16 file
    built), which a later start then builds; empty elsewhere. Asked at every start of
    such a bundle, it first removes what a build killed mid-write left there."""
    if not packaged_source(DEFAULT_MODEL):
        return []
    remove_partial_files(models_dir)
    return [fmt for fmt in default_formats() if not model_file(DEFAULT_MODEL, models_dir, fmt).is_file()]


def build_default_model(models_dir: Path, progress: Progress | None = None) -> Path:
    """Build the default model as ``memdesk model build`` does (its F16 file, which the
    OpenClaw profiles compute on, and this CPU's format where that is another) and
    return the file loaded by default. Each file is byte-identical to what
    ``memdesk model build`` writes from the same pinned source (the same converter,
    the source's sha256 checked first)."""
    for fmt in default_formats():
        build_model(DEFAULT_MODEL, models_dir, progress, weights=fmt)
    path = find_default_model(models_dir)
    if path is None:  # build_model raises first; this would be a bug
        raise ModelBuildError(f"{DEFAULT_MODEL} was built but no file of it is in {models_dir}")
    return path
