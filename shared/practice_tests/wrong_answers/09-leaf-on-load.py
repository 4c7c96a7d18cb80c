# mistake: takes the deepest entry as the leaf, not the one written last
# expect: 'd'
return max(self.nodes, key=lambda node: len(self.node_path(node.id))).id if self.nodes else None
