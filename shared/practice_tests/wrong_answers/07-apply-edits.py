# mistake: applies the edits one after another from the start, so later spans shift
# expect: EditError
bom = BOM if original.startswith(BOM) else ""
body = original.removeprefix(BOM)
text = to_lf(body)
result = text
for index, edit in enumerate(edits):
    start, end = _span(result, edit, f"edits[{index}]" if len(edits) > 1 else "", shown)
    result = result[:start] + to_lf(edit.new_text) + result[end:]
if result == text:
    raise EditError(f"No changes made to {shown}. The replacement produced identical "
                    "content. This might indicate an issue with special characters or "
                    "the text not existing as expected.")
return bom + result
