"""The wheel's package map; every other piece of the build configuration is in pyproject.toml.

``src/`` holds two top-level packages, both shipped: ``adat`` and ``adat_offline`` (the offline
stand-in, registered as the ``adat.providers`` plugin ``offline`` in pyproject.toml).
The repository keeps ``flows/``, ``tasks/``, ``catalogs/``, ``sql/`` and ``data/reference/`` at
its top level. The wheel ships them too, so a non-editable install works from any directory:
``flows`` and ``tasks`` become top-level packages next to ``adat`` (as does ``adat_reference``,
the built-in agents under test, found under ``src/`` beside ``adat``), and each data directory
becomes package data under ``adat/_home/`` with the same relative path (``adat/_home/sql/...``),
which :func:`adat.config.adat_home` reads. Lists are computed, so a new subpackage of ``adat``
or a new folder of catalogs needs no edit here.
"""

from pathlib import Path

from setuptools import find_namespace_packages, find_packages, setup

HOME = "adat._home"
#: data directory in the repository -> package data under adat/_home/<same path>
DATA_DIRS = ("catalogs", "sql", "data/reference")


def data_packages() -> tuple[list[str], dict[str, str], dict[str, list[str]]]:
    packages, package_dir, package_data = [], {}, {}
    for folder in DATA_DIRS:
        root = f"{HOME}.{folder.replace('/', '.')}"
        package_dir[root] = folder
        for sub in ["", *find_namespace_packages(where=folder)]:
            name = f"{root}.{sub}" if sub else root
            packages.append(name)
            package_data[name] = [p.name for p in Path(folder, *sub.split(".") if sub else ()).iterdir()
                                  if p.is_file()]
    return packages, package_dir, package_data


packages, package_dir, package_data = data_packages()
setup(
    packages=[*find_packages("src"), "flows", "tasks", *packages],  # src: adat, adat_offline and their subpackages
    package_dir={"": "src", "flows": "flows", "tasks": "tasks", **package_dir},
    package_data={"adat": ["py.typed", "reporting/templates/*.j2"], **package_data},
)
