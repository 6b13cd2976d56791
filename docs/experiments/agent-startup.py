import os, subprocess, time, math, random, statistics as st, sys
J=os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")
base="numaloom-agent"  # run from the repository root after ./mvnw -pl numaloom-agent -am package -DskipTests
cp=base+'/target/test-classes'
agent='-javaagent:'+base+'/target/numaloom-agent.jar'
cmds={'stock':[J,'-cp',cp,'org.example.app.AgentMain'],
      'agent':[J,agent,'-cp',cp,'org.example.app.AgentMain']}
random.seed(51)
n=int(sys.argv[1]) if len(sys.argv)>1 else 30
d=[]; t={'stock':[], 'agent':[]}
for r in range(n+3):
    order=['stock','agent']; random.shuffle(order)
    res={}
    for k in order:
        s=time.perf_counter(); subprocess.run(cmds[k],stdout=subprocess.DEVNULL,check=True); res[k]=time.perf_counter()-s
    if r<3: continue  # warm the file cache
    for k in res: t[k].append(res[k])
    d.append(math.log(res['agent']/res['stock']))
m=st.mean(d); s=st.stdev(d); tq={29:2.045,19:2.093,39:2.023}.get(n-1,2.0)
hw=tq*s/math.sqrt(n)
print('rounds %d; stock median %.0f ms, agent median %.0f ms; agent/stock %.3f [%.3f, %.3f]'%(n, 1000*st.median(t['stock']),1000*st.median(t['agent']),math.exp(m),math.exp(m-hw),math.exp(m+hw)))
