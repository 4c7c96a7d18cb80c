# mistake: walks up from the leaf but forgets to turn the path around, so it runs leaf to root
# expect: At index 0 diff
node = self.node_of.get(leaf_id)
if node is None:
    raise SessionError(f"no entry with id {leaf_id}")
path = [node]
while (parent := self.parent_of(node)) is not None:
    if len(path) > len(self.node_of):
        raise SessionError(f"entry {leaf_id}: its chain of parents loops")
    path.append(parent)
    node = parent
return path
