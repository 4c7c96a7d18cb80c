# mistake: puts each file's content on the line of its tag, without line breaks
# expect: project_context differs from Pi's
blocks = [f'<project_instructions path="{file.path}">{file.content}</project_instructions>'
          for file in files]
return "\n\n".join([CONTEXT_INTRO, *blocks])
