# mistake: joins the location with dots only, so list indexes read as names
# expect: content[0]
problem = error.errors()[0]
field = ".".join(str(part) for part in problem["loc"])
if not field:
    return f"{where}: {problem['msg']}"
return f"{where}: {field}: {problem['msg']}"
