// exhaustive.cpp WHICH NEW.so OLD.so: every float input of one function
// (0 log, 1 log2, 2 log10, 3 exp) through the fused-kernel form built with
// the fuse lane's header (NEW) and without it (OLD: libm, MLX's exp),
// against a double-precision reference. scripts/check-fuse-math.sh runs it.
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
  double worst=0, worstold=0, maxdiff=0; float worstx=0; uint64_t bad=0, ndiff=0;
  for(uint64_t base=0; base<(1ull<<32); base+=B){
    for(size_t i=0;i<B;i++) in[i]=u2f((uint32_t)(base+i));
    fn(in.data(),out.data(),B); fo(in.data(),old.data(),B);
    for(size_t i=0;i<B;i++){
      float x=in[i], y=out[i], o=old[i];
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
  printf("%s: all 2^32 floats: worst %.3f ULP from the double reference at x=%a (%.9g); the old kernel (libm/MLX) %.3f ULP; differs from old on %llu inputs, by at most %.3f ULP; bad %llu\n", nm[which],worst,worstx,worstx,worstold,(unsigned long long)ndiff,maxdiff,(unsigned long long)bad);
}
