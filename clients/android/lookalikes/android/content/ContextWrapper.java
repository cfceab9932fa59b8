// Look-alike of android.content.ContextWrapper, compile-only. Its declaration was not read from
// android.txt (the section was not paged in): the constructor and the overrides follow Context.
package android.content;

public class ContextWrapper extends Context {
    public ContextWrapper(Context base) { throw droptrack.lookalike.Absent.here(); }

    @Override
    public Context getApplicationContext() { throw droptrack.lookalike.Absent.here(); }

    @Override
    public String getPackageName() { throw droptrack.lookalike.Absent.here(); }

    @Override
    public android.content.res.Resources getResources() { throw droptrack.lookalike.Absent.here(); }

    @Override
    public android.content.pm.PackageManager getPackageManager() { throw droptrack.lookalike.Absent.here(); }

    @Override
    public SharedPreferences getSharedPreferences(String name, int mode) { throw droptrack.lookalike.Absent.here(); }

    @Override
    public void startActivity(Intent intent) { throw droptrack.lookalike.Absent.here(); }

    @Override
    public int checkSelfPermission(String permission) { throw droptrack.lookalike.Absent.here(); }
}
