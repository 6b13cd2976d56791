"""Code and comment lines (non-blank) of VnaLock's contended path: python3 docs/experiments/contended-path-lines.py [REV].

Run from the repository root; without REV it counts the working tree."""
import sys, subprocess, re, os
rev = sys.argv[1] if len(sys.argv) > 1 else None
base = 'numaloom-core/src/main/java/io/numaloom/'
def files():
    if rev:
        out = subprocess.run(['git','ls-tree','--name-only',rev,base],capture_output=True,text=True,cwd='.').stdout.split()
    else:
        out=[base+f for f in os.listdir(base)]
    return sorted(f for f in out if re.match(r'.*/(Vna\w*|ConditionLock|SignalledWaiters)\.java$', f) and 'VnaReentrantLock' not in f)
def read(f):
    if rev: return subprocess.run(['git','show',rev+':'+f],capture_output=True,text=True,cwd='.').stdout
    return open(f).read()
tc=tm=0
for f in files():
    code=com=0; inblock=False
    for line in read(f).split('\n'):
        s=line.strip()
        if not s: continue
        if inblock:
            com+=1
            if '*/' in s: inblock=False
            continue
        if s.startswith('/*'):
            com+=1
            if '*/' not in s: inblock=True
            continue
        if s.startswith('//'): com+=1; continue
        code+=1
    tc+=code; tm+=com
    print('%-28s code %5d  comments %5d'%(f.split('/')[-1],code,com))
print('%-28s code %5d  comments %5d  files %d'%('TOTAL',tc,tm,len(files())))
