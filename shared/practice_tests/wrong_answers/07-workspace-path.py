# mistake: checks the path before resolving symlinks
# expect: DID NOT RAISE WorkspaceError
if "\x00" in path:
    raise WorkspaceError(f"Refused: {path!r} contains a NUL character")
wanted = Path(os.path.expanduser(path.removeprefix("@")))
target = wanted if wanted.is_absolute() else self.root / wanted
if Path(os.path.normpath(target)).is_relative_to(self.root):
    return Path(os.path.normpath(target))
raise WorkspaceError(f"Refused: {path} is outside the workspace")
