"""The Triton cache of a candidate process: its private folder, except for the C modules (`cuda_utils`, launchers)
the parent has already built in the folder KBX_TRITON_MODULES names (parent/triton_modules.py), which it reads
from there instead of building them with gcc. Named by TRITON_CACHE_MANAGER in the process's environment.
The process cannot write that folder; everything it builds itself still goes to its private cache."""

from __future__ import annotations

import os
import sysconfig

from triton.runtime.cache import FileCacheManager

MODULE_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


class SharedModules(FileCacheManager):
    def get_file(self, filename: str) -> str | None:
        shared = os.environ.get("KBX_TRITON_MODULES")
        if shared and filename.endswith(MODULE_SUFFIX):
            path = os.path.join(shared, self.key, filename)
            if os.path.isfile(path):
                return path
        return super().get_file(filename)
