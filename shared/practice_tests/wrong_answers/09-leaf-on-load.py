# mistake: takes the deepest entry as the leaf, not the one written last
# expect: 'd'
return max(self.entries, key=lambda entry: len(self.path_to(entry.id))).id if self.entries else None
