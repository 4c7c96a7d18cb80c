# mistake: cuts exactly where the budget runs out, even when that entry is a tool result
# expect: keepRecentTokens
points = [i for i in range(start, end) if is_cut_point(items[i])]
if not points:
    return CutPoint(start, -1, False)
cut = points[0]
reached = budget_index(items, start, end, keep)
if reached is not None:
    cut = reached
while cut > start and not items[cut - 1][1] and items[cut - 1][0].type != "compaction":
    cut -= 1
if starts_turn(items[cut]):
    return CutPoint(cut, -1, False)
turn_start = find_turn_start_index(items, cut, start)
return CutPoint(cut, turn_start, turn_start != -1)
