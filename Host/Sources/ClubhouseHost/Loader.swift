import CClubhouse
