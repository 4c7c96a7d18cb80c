# mistake: tells the model something was wrong but not what it sent
# expect: not-a-number
problems = [
    f"  - {'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in error.errors()
]
return "\n".join([f"Invalid arguments for tool {call.name}:", *problems])
