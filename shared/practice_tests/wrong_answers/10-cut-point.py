# mistake: cuts exactly where the budget runs out, even when that entry is a tool result
# expect: keepRecentTokens
first = next_cut_point(path, start, end)
if first is None:
    return CutPoint(start, -1, False)
cut = first
reached = budget_index(path, start, end, keep)
if reached is not None:
    cut = reached
while cut > start and not isinstance(path[cut - 1], MessageEntry | CompactionEntry):
    cut -= 1
entry = path[cut]
if isinstance(entry, MessageEntry) and entry.message.role == "user":
    return CutPoint(cut, -1, False)
turn_start = find_turn_start_index(path, cut, start)
return CutPoint(cut, turn_start, turn_start != -1)
