# mistake: walks up from the leaf but forgets to turn the path around, so it runs leaf to root
# expect: At index 0 diff
entry = self.by_id.get(leaf_id)
if entry is None:
    raise SessionError(f"no entry with id {leaf_id}")
path = [entry]
while (parent := self.parent_of(entry)) is not None:
    if len(path) > len(self.by_id):
        raise SessionError(f"entry {leaf_id}: its chain of parents loops")
    path.append(parent)
    entry = parent
return path
