import PingEmulator
print(x)
