# mistake: takes the first compaction on the path instead of the latest
# expect: leafOnLoad
latest = next((i for i in range(len(path)) if path[i].type == "compaction"), None)
if latest is None:
    return None, path
compaction = path[latest]
assert isinstance(compaction, CompactionEntry)
before = [entry.id for entry in path[:latest]]
first_kept = compaction.first_kept_entry_id
kept = list(path[before.index(first_kept):latest]) if first_kept in before else []
return compaction, kept + list(path[latest + 1:])
