// exhaustive.cpp WHICH NEW.so OLD.so: every float input of one function
// (0 log, 1 log2, 2 log10, 3 exp) through the fused-kernel form built with
// the fuse lane's header (NEW) and without it (OLD: libm, MLX's exp),
// against a double-precision reference, and for the logs bit for bit against
// the C library's logf, log2f, log10f (fuselog.go's are meant to be glibc's:
// 0 differing expected, NaNs' bits included). scripts/check-fuse-math.sh
// runs it.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <vector>
#include <dlfcn.h>
typedef void (*kf)(const float*, float*, size_t);
static float u2f(uint32_t u){float f; memcpy(&f,&u,4); return f;}
static double ulp_of(double r){ float fr=(float)r; double a=std::fabs((double)fr); if(a<std::ldexp(1.0,-126)) return std::ldexp(1.0,-149);
  int e; std::frexp(a,&e); return std::ldexp(1.0,e-24); }
int main(int argc,char**argv){
  int which=atoi(argv[1]); const char* nm[4]={"log","log2","log10","exp"}; char sym[4]; snprintf(sym,4,"k%d",which);
  kf fn=(kf)dlsym(dlopen(argv[2],RTLD_NOW),sym), fo=(kf)dlsym(dlopen(argv[3],RTLD_NOW),sym);
  const size_t B=1<<20; std::vector<float> in(B), out(B), old(B);
  float (*libm)(float) = which==0? logf : which==1? log2f : which==2? log10f : nullptr;
  double worst=0, worstold=0, maxdiff=0; float worstx=0; uint64_t bad=0, ndiff=0, glibcdiff=0, glibcnan=0;
  for(uint64_t base=0; base<(1ull<<32); base+=B){
    for(size_t i=0;i<B;i++) in[i]=u2f((uint32_t)(base+i));
    fn(in.data(),out.data(),B); fo(in.data(),old.data(),B);
    for(size_t i=0;i<B;i++){
      float x=in[i], y=out[i], o=old[i];
      if(libm){ float g=libm(x); uint32_t ub, gb; memcpy(&ub,&y,4); memcpy(&gb,&g,4);
        if(ub!=gb){ if(std::isnan(y)&&std::isnan(g)) glibcnan++; else { if(glibcdiff<10) printf("glibc x=%a (%08x) got %a want %a\n",x,(uint32_t)(base+i),y,g); glibcdiff++; } } }
      double d=x, ref = which==0? std::log(d) : which==1? std::log2(d) : which==2? std::log10(d) : std::exp(d);
      if(which==3 && (x>88.0f || x < -88.0f || std::isnan(x))){ ref=o; } // MLX's own range rule
      if(std::isnan(ref)||std::isinf(ref)||std::isnan(x)||std::isinf(x)){
        bool ok = (std::isnan(ref)&&std::isnan(y)) || (!std::isnan(ref) && y==(float)ref);
        if(!ok){ if(bad<10) printf("special x=%a y=%a ref=%a\n",x,y,ref); bad++; }
        continue;
      }
      if(std::isnan(y)||std::isinf(y)){ if(bad<10) printf("bad x=%a y=%a ref=%a\n",x,y,ref); bad++; continue; }
      double e=std::fabs((double)y-ref)/ulp_of(ref), eo=std::fabs((double)o-ref)/ulp_of(ref);
      if(e>worst){worst=e; worstx=x;} if(eo>worstold && !std::isnan(eo)) worstold=eo;
      if(y!=o){ ndiff++; double dd=std::fabs((double)y-o)/ulp_of(o); if(dd>maxdiff) maxdiff=dd; }
      if(ref==0 && y!=0){ if(bad<10) printf("zero x=%a y=%a\n",x,y); bad++; }
    }
  }
  if(libm) printf("%s: all 2^32 floats: %llu results differ from glibc's %sf (the fuse lane's against the C library's, bit for bit), %llu more only in a NaN's bits\n", nm[which],(unsigned long long)glibcdiff,nm[which],(unsigned long long)glibcnan);
  printf("%s: all 2^32 floats: worst %.3f ULP from the double reference at x=%a (%.9g); the old kernel (libm/MLX) %.3f ULP; differs from old on %llu inputs, by at most %.3f ULP; bad %llu\n", nm[which],worst,worstx,worstx,worstold,(unsigned long long)ndiff,maxdiff,(unsigned long long)bad);
}
