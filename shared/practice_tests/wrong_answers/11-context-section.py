# mistake: writes the heading even when there are no context files
# expect: # Project Context
blocks = "".join(f"## {file.path}\n\n{file.content}\n\n" for file in files)
return f"\n\n{CONTEXT_HEADING}\n\n{CONTEXT_INTRO}\n\n{blocks}"
