"""The command line (`polyrag`). Importing it limits malloc arenas for the process and the ones it
starts (see polyrag/allocator.py): here, before any module it imports starts a thread."""

from polyrag.allocator import limit_arenas

limit_arenas()
