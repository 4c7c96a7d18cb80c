# mistake: stops at the first broken rule instead of reporting each one
# expect: -Bad--Name-
if js_length(name) > MAX_NAME_LENGTH:
    return [f"name exceeds {MAX_NAME_LENGTH} characters ({js_length(name)})"]
if not NAME_CHARS.fullmatch(name):
    return ["name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"]
if name.startswith("-") or name.endswith("-"):
    return ["name must not start or end with a hyphen"]
if "--" in name:
    return ["name must not contain consecutive hyphens"]
return []
